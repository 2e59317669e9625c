#!/usr/bin/env sprof
// purpose: calls of user functions matching a glob, counted per function
// param pattern func -: the functions, FUNC a glob (e.g. ./app:parse_* or libc:str*)
//   sudo sprof -c ./app funccount --param 'pattern=./app:parse_*'
uprobe:$pattern { @calls[func] = count(); }
