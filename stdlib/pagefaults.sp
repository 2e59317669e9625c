#!/usr/bin/env sprof
// purpose: page faults by process name and user stack (where the program touched new memory)
// param period int 1: record one fault in every PERIOD
//   sudo sprof -c ./app pagefaults -o faults.svg
software:page-faults:$period { @faults[comm, ustack] = count(); }
