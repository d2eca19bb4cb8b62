#!/usr/bin/env node
import { apiDocument } from './http/api-routes';

// The document /v1/openapi.json serves, printed without starting anything: the SDKs generate their types from it.
process.stdout.write(`${JSON.stringify(apiDocument(), null, 2)}\n`);
