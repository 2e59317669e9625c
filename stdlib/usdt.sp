#!/usr/bin/env sprof
// purpose: rate and arguments of a USDT probe: firings per interval and the distribution of arg0 and arg1
// param probe usdt -: the probe (e.g. ./app:myprov:request)
// param interval int 1: seconds between rate lines
//   sudo sprof -c ./app usdt --param probe=./app:myprov:request
usdt:$probe { @calls = count(); @rate++; @arg0 = hist(arg0); @arg1 = hist(arg1); }
interval:s:$interval { printf("%s: %d in %d s\n", $probe, @rate, $interval); @rate = 0; }
END { clear(@rate); }
