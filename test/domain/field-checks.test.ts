import { matchChoiceAnswers } from "../../src/domain/forms/choice-matching";
import { interpretFieldInput as interpret, MAX_VALUE_BYTES } from "../../src/domain/forms/field-input";
import { fieldOfType } from "../support/field-definition";

// The per-type checks of a sent value (contract §4) as pure functions: what is stored, and the
// exact notice when a value is not written.

/** The outcome with its problems read as the legacy answer shows them: each one's message is a notice. */
function interpretFieldInput(...args: Parameters<typeof interpret>) {
  const { problems, ...outcome } = interpret(...args);
  return { ...outcome, notices: problems.map((problem) => problem.message) };
}

const stored = (encoded: string) => ({ accepted: true, encoded, notices: [] });
const refused = (...notices: string[]) => ({ accepted: false, notices });

describe("number", () => {
  it("takes integers and decimals, signed, trimmed; a number is taken as its text", () => {
    expect(interpretFieldInput("age", fieldOfType("number"), "-12")).toEqual(stored("-12"));
    expect(interpretFieldInput("age", fieldOfType("number"), " 0.5 ")).toEqual(stored("0.5"));
    expect(interpretFieldInput("age", fieldOfType("number"), 42)).toEqual(stored("42"));
  });

  it.each(["1,5", "1e3", "12a", ".5", "+3"])("refuses %j, naming the key and the value", (value) => {
    expect(interpretFieldInput("age", fieldOfType("number"), value)).toEqual(
      refused(`"age": ${JSON.stringify(value)} is not a number; it was not written.`),
    );
  });
});

describe("email", () => {
  it("takes an address, trimmed", () => {
    expect(interpretFieldInput("mail", fieldOfType("email"), " a.b@c.test ")).toEqual(stored("a.b@c.test"));
  });

  it.each(["a@", "no-at.test", "a b@c.test"])("refuses %j", (value) => {
    expect(interpretFieldInput("mail", fieldOfType("email"), value)).toEqual(
      refused(`"mail": ${JSON.stringify(value)} is not a valid email address; it was not written.`),
    );
  });
});

describe("date", () => {
  it("takes a real calendar date as YYYY-MM-DD", () => {
    expect(interpretFieldInput("born", fieldOfType("date"), "2028-02-29")).toEqual(stored("2028-02-29"));
  });

  it.each(["2026-02-29", "2026-13-01", "2026-2-1", "01/02/2026", "2026-02-01 10:00"])("refuses %j", (value) => {
    expect(interpretFieldInput("born", fieldOfType("date"), value)).toEqual(
      refused(`"born": ${JSON.stringify(value)} is not a date in the form YYYY-MM-DD; it was not written.`),
    );
  });
});

describe("phone", () => {
  it("takes digits with the usual separators and at least four digits", () => {
    expect(interpretFieldInput("tel", fieldOfType("phone"), "+1 (555) 010-2030")).toEqual(stored("+1 (555) 010-2030"));
    expect(interpretFieldInput("tel", fieldOfType("phone"), "0612345678")).toEqual(stored("0612345678"));
    expect(interpretFieldInput("tel", fieldOfType("phone"), "1234")).toEqual(stored("1234"));
  });

  it.each(["123", "12-3", "call me", "555-CALL"])("refuses %j", (value) => {
    expect(interpretFieldInput("tel", fieldOfType("phone"), value)).toEqual(
      refused(`"tel": ${JSON.stringify(value)} is not a phone number; it was not written.`),
    );
  });
});

describe("every checked type", () => {
  it.each(["number", "email", "date", "phone"] as const)("%s: an empty string clears the answer", (type) => {
    expect(interpretFieldInput("k", fieldOfType(type), "")).toEqual(stored(""));
  });

  it("a text field takes one value, not an array, and no other JSON type", () => {
    expect(interpretFieldInput("k", fieldOfType("text"), ["a"])).toEqual(
      refused('"k" is a text field and takes one value, not an array; it was not written.'),
    );
    expect(interpretFieldInput("k", fieldOfType("text"), true)).toEqual(
      refused('"k" must be a string, a number or an array of strings; it was not written.'),
    );
  });
});

describe("byte limit", () => {
  it(`a value of exactly ${MAX_VALUE_BYTES} bytes is stored; one byte more is not`, () => {
    expect(interpretFieldInput("k", fieldOfType("textarea"), "a".repeat(MAX_VALUE_BYTES))).toMatchObject({
      accepted: true,
    });
    expect(interpretFieldInput("k", fieldOfType("textarea"), "a".repeat(MAX_VALUE_BYTES + 1))).toEqual(
      refused(`"k" is longer than ${MAX_VALUE_BYTES} bytes; it was not written.`),
    );
  });

  it("counts UTF-8 bytes, not characters", () => {
    const twoByteCharacters = "é".repeat(Math.floor(MAX_VALUE_BYTES / 2) + 1);
    expect(twoByteCharacters.length).toBeLessThan(MAX_VALUE_BYTES);
    expect(interpretFieldInput("k", fieldOfType("text"), twoByteCharacters).accepted).toBe(false);
  });
});

describe("single and multiple choice", () => {
  const options = ["Swimming", "<b>Archery</b>", "<i>Rock</i> Climbing", "archery"];

  it("multiple choice stores the matched options once each, in option order", () => {
    expect(
      interpretFieldInput("k", fieldOfType("multiple_choice", options), ["rock climbing", "Swimming", "SWIMMING"]),
    ).toEqual(stored('["Swimming","<i>Rock</i> Climbing"]'));
  });

  it("an exactly equal option wins over a loose match", () => {
    expect(matchChoiceAnswers(["archery"], options)).toEqual({ matched: ["archery"], unmatched: [] });
    expect(matchChoiceAnswers(["ARCHERY"], options)).toEqual({ matched: ["<b>Archery</b>"], unmatched: [] });
  });

  it("unmatched answers are dropped with a notice while the matched ones are stored", () => {
    expect(interpretFieldInput("k", fieldOfType("multiple_choice", options), ["Swimming", "Golf"])).toEqual({
      accepted: true,
      encoded: '["Swimming"]',
      notices: ['"k": "Golf" is not an answer of "Pick"; it was dropped.'],
    });
  });

  it("single choice takes exactly one answer", () => {
    expect(interpretFieldInput("k", fieldOfType("single_choice", ["S", "M"]), "m")).toEqual(stored('["M"]'));
    expect(interpretFieldInput("k", fieldOfType("single_choice", ["S", "M"]), ["S", "M"])).toEqual(
      refused('"k" is a single-choice field and takes exactly one answer, got 2; it was not written.'),
    );
  });

  it("an empty array or blank answers clear a choice; other JSON types are refused", () => {
    expect(interpretFieldInput("k", fieldOfType("multiple_choice", options), [])).toEqual(stored("[]"));
    expect(interpretFieldInput("k", fieldOfType("single_choice", ["S"]), [" "])).toEqual(stored("[]"));
    expect(interpretFieldInput("k", fieldOfType("multiple_choice", options), [{ a: 1 }])).toEqual(
      refused('"k" is a choice field and takes an array of strings; it was not written.'),
    );
  });
});
