#!/usr/bin/env sprof
// purpose: on-CPU profile of a Ruby program: user stacks with its Ruby methods spliced in
// param hz int 99: samples per second on each CPU
// On-CPU profile of a Ruby program (99 Hz by default): user stacks with the Ruby
// methods and blocks spliced in where the VM runs them (Ruby 3.1, 3.3), C methods
// by name, so time in C code shows under the Ruby method that called it.
// sprof -c 'ruby app.rb' rbprofile -o app.svg
// (rbstack instead of ustack keeps only the Ruby frames)
profile:hz:$hz { @[ustack] = count(); }
