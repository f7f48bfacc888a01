#!/usr/bin/env node
// The CLI is compiled TypeScript; `npm install` builds it (prepare), `npm start` rebuilds it when sources changed.
require("../dist/src/cli/main.js");
