import { CHOICE_FIELD_TYPES, type FieldType } from "../../entities";

/** A stored answer as clients see it: text, or the chosen option values of a choice field. */
export type FieldAnswer = string | string[];

export const isChoiceType = (type: FieldType) => CHOICE_FIELD_TYPES.includes(type);

/** Choice answers are stored as a JSON array of option values; anything else as plain text. */
export function encodeAnswer(type: FieldType, answer: FieldAnswer): string {
  return isChoiceType(type) ? JSON.stringify(Array.isArray(answer) ? answer : [answer]) : String(answer);
}

export function decodeAnswer(type: FieldType, stored: string): FieldAnswer {
  if (!isChoiceType(type)) return stored;
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.map(String) : [String(parsed)];
  } catch {
    return [stored];
  }
}

/** An answer counts as given when it has a non-blank text or at least one chosen option. */
export function answerIsEmpty(answer: FieldAnswer | undefined): boolean {
  if (answer === undefined) return true;
  return Array.isArray(answer) ? answer.length === 0 : answer.trim() === "";
}

export function parseChoiceOptions(stored: string | null): string[] {
  if (!stored) return [];
  const parsed: unknown = JSON.parse(stored);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}
