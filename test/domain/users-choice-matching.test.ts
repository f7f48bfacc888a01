import { matchChoiceAnswers, stripHtml } from "../../src/domain/forms/choice-matching";
import { interpretFieldInput } from "../../src/domain/forms/field-input";
import { fieldOfType } from "../support/field-definition";

// Pure rules of contract §4 (choice matching) and of the per-type checks.

const OPTIONS = ["Yes", "No", "<b>Maybe</b>", "maybe", "Rock &amp; Roll"];

describe("choice matching (contract §4)", () => {
  it("an exactly equal option wins, before any loose comparison", () => {
    expect(matchChoiceAnswers(["maybe"], OPTIONS)).toEqual({ matched: ["maybe"], unmatched: [] });
  });

  it("if none is equal, HTML is stripped from both sides and both are lower-cased; the option's own value is kept", () => {
    expect(matchChoiceAnswers(["MAYBE"], OPTIONS)).toEqual({ matched: ["<b>Maybe</b>"], unmatched: [] });
    expect(matchChoiceAnswers(["<i>yes</i>"], OPTIONS)).toEqual({ matched: ["Yes"], unmatched: [] });
    expect(matchChoiceAnswers(["rock & roll"], OPTIONS)).toEqual({ matched: ["Rock &amp; Roll"], unmatched: [] });
  });

  it("no trimming beyond the rule: surrounding spaces make a different answer", () => {
    expect(matchChoiceAnswers([" yes"], OPTIONS)).toEqual({ matched: [], unmatched: [" yes"] });
  });

  it("unmatched strings are reported as sent; matched ones come back once each, in option order", () => {
    expect(matchChoiceAnswers(["No", "Golf", "yes", "no"], OPTIONS)).toEqual({
      matched: ["Yes", "No"],
      unmatched: ["Golf"],
    });
  });

  it("stripHtml removes tags and decodes the common entities", () => {
    expect(stripHtml("<p>A&nbsp;<b>b</b> &lt;c&gt; &quot;d&quot; &#39;e&#39;</p>")).toBe(`A b <c> "d" 'e'`);
  });
});

describe("value per field type (contract §4, our decisions)", () => {
  it("text takes strings and numbers, as text", () => {
    expect(interpretFieldInput("k", fieldOfType("text"), 12)).toEqual({ accepted: true, encoded: "12", problems: [] });
    expect(interpretFieldInput("k", fieldOfType("textarea"), "a\nb")).toEqual({
      accepted: true,
      encoded: "a\nb",
      problems: [],
    });
  });

  it("number, email, date and phone are checked; an empty string clears them", () => {
    expect(interpretFieldInput("k", fieldOfType("number"), " 3.25 ")).toMatchObject({
      accepted: true,
      encoded: "3.25",
    });
    expect(interpretFieldInput("k", fieldOfType("number"), "1e3").accepted).toBe(false);
    expect(interpretFieldInput("k", fieldOfType("email"), "x@y.test")).toMatchObject({ accepted: true });
    expect(interpretFieldInput("k", fieldOfType("date"), "2026-02-29").accepted).toBe(false);
    expect(interpretFieldInput("k", fieldOfType("date"), "2028-02-29")).toMatchObject({ accepted: true });
    expect(interpretFieldInput("k", fieldOfType("phone"), "12-3").accepted).toBe(false);
    for (const type of ["number", "email", "date", "phone"] as const) {
      expect(interpretFieldInput("k", fieldOfType(type), "")).toEqual({ accepted: true, encoded: "", problems: [] });
    }
  });

  it("choice fields store the matched options as a JSON array; a plain string or number is an array of one", () => {
    expect(interpretFieldInput("k", fieldOfType("multiple_choice", ["1", "2"]), 2)).toEqual({
      accepted: true,
      encoded: '["2"]',
      problems: [],
    });
    expect(interpretFieldInput("k", fieldOfType("single_choice", ["A", "B"]), "b")).toEqual({
      accepted: true,
      encoded: '["B"]',
      problems: [],
    });
  });

  it("a choice field whose answers all fail keeps its value (not accepted), with one problem per answer and one for the field", () => {
    const result = interpretFieldInput("k", fieldOfType("multiple_choice", ["A"]), ["x", "y"]);
    expect(result.accepted).toBe(false);
    expect(result.problems.map(({ key, value, reason }) => ({ key, value, reason }))).toEqual([
      { key: "k", value: "x", reason: "UNKNOWN_CHOICE" },
      { key: "k", value: "y", reason: "UNKNOWN_CHOICE" },
      { key: "k", value: ["x", "y"], reason: "NO_MATCHING_CHOICE" },
    ]);
  });
});
