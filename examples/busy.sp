#!/usr/bin/env sprof
// Where does ./busy spend its CPU? Sample user stacks at 99 Hz.
//   sudo build/sprof -c 'build/examples/busy 2' examples/busy.sp
profile:hz:99 < @[ustack] = count(); >
