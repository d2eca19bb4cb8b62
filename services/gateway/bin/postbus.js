#!/usr/bin/env node
// Operator CLI; the compiled code lives in dist/ (npm run build).
// `postbus status …` belongs to the status service (its operator API over HTTP): handed over as is.
if (process.argv[2] === 'status') {
  const { main } = require('../../status/dist/cli.js');
  main(process.argv.slice(3)).then((code) => process.exit(code));
} else {
  require('../dist/cli.js');
}
