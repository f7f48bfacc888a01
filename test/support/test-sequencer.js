// jest's own order (failed files first, then the slowest), plus one note for the global setup:
// whether any selected file starts the compiled service (calls builtService()), so a run of files
// that do not need it does not pay for a build (test/support/service-build.ts).
const { readFileSync } = require("node:fs");
const Sequencer = require("@jest/test-sequencer").default;

const BUILD_MARKER = "builtService(";

class RegapiSequencer extends Sequencer {
  async sort(tests) {
    const needsBuild = tests.some((test) => readFileSync(test.path, "utf8").includes(BUILD_MARKER));
    process.env.REGAPI_TESTS_NEED_BUILD = needsBuild ? "1" : "0";
    return super.sort(tests);
  }
}

module.exports = RegapiSequencer;
