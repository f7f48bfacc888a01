#!/usr/bin/env node
// The CLI is compiled TypeScript; `npm install` builds it (prepare), `npm start` rebuilds it.
require("../dist/src/cli/main.js");
