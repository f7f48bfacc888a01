import { parseCommand } from "../../src/domain/commands/parse-command";
import { DomainError } from "../../src/domain/errors";
import { commonEnvelope, envelopeWithOptionalGroup, parseEnvelope } from "../../src/rest/envelope/envelope";

// parseEnvelope reads a well-formed envelope without running its schema: for every body, its
// answer (or its failure, with every problem) is the schema's.

const BODIES: Record<string, unknown>[] = [
  { action: "get_info", group_id: 7 },
  { action: "get_info", group_id: "7", doc: {} },
  { action: "get_info", group_id: 0 },
  { action: "get_info" },
  { action: "get_info", group_id: null },
  { action: "get_info", group_id: -1 },
  { action: "get_info", group_id: 1.5 },
  { action: "get_info", group_id: "07x" },
  { action: "get_info", group_id: "1234567890123456" },
  { action: "get_info", group_id: true },
  { action: "", group_id: 7 },
  { action: 5, group_id: 7 },
  { group_id: 7 },
  {},
];

function outcome(run: () => unknown): unknown {
  try {
    return { value: run() };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { code: error.code, message: error.message, details: error.details };
  }
}

describe("parseEnvelope", () => {
  it.each(BODIES.map((body) => [JSON.stringify(body), body]))("%s: the schema's answer", (_name, body) => {
    expect(outcome(() => parseEnvelope(body, false))).toEqual(outcome(() => parseCommand(commonEnvelope, body)));
    expect(outcome(() => parseEnvelope(body, true))).toEqual(
      outcome(() => parseCommand(envelopeWithOptionalGroup, body)),
    );
  });
});
