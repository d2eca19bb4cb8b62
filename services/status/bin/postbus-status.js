#!/usr/bin/env node
// Operator CLI of the status service (also reached as `postbus status …`); compiled code in dist/.
require('../dist/cli.js');
