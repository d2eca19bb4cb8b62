#!/usr/bin/env node
// Operator CLI; the compiled code lives in dist/ (npm run build).
require('../dist/cli.js');
