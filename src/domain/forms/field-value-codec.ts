import type { FieldAnswer } from "../../data/field-value-codec";

export {
  decodeAnswer,
  encodeAnswer,
  isChoiceType,
  parseChoiceOptions,
  type FieldAnswer,
} from "../../data/field-value-codec";

/** An answer counts as given when it has a non-blank text or at least one chosen option. */
export function answerIsEmpty(answer: FieldAnswer | undefined): boolean {
  if (answer === undefined) return true;
  return Array.isArray(answer) ? answer.length === 0 : answer.trim() === "";
}
