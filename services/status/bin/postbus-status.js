#!/usr/bin/env node
// Operator CLI of the status service (also reached as `postbus status …`); compiled code in dist/.
const { main } = require('../dist/cli.js');
main(process.argv.slice(2)).then((code) => process.exit(code));
