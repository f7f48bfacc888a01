import type { FieldDefinition } from "../../data/forms.data";
import { encodeAnswer, isChoiceType } from "../../domain/forms/field-value-codec";

// The made-up parts of seeded registrants: names, answers by field type and a repeatable
// pseudo-random source.

export const PAYMENT_METHODS = ["card", "bank transfer", "cheque"];
export const UTM_SOURCES = ["newsletter", "facebook", "google", null, null];

export const DAY_MS = 86_400_000;

export const FIRST_NAMES = [
  "Ada",
  "Ben",
  "Cleo",
  "Dev",
  "Eva",
  "Finn",
  "Gia",
  "Hugo",
  "Iris",
  "Jon",
  "Kim",
  "Leo",
  "Mia",
  "Noor",
  "Omar",
  "Pia",
];
export const LAST_NAMES = [
  "Adams",
  "Baker",
  "Chen",
  "Diaz",
  "Evans",
  "Fox",
  "Garcia",
  "Hall",
  "Ito",
  "Jones",
  "Khan",
  "Lopez",
  "Moss",
  "Ngata",
];
const WORDS = [
  "camp",
  "river",
  "forest",
  "canoe",
  "music",
  "trail",
  "lake",
  "stars",
  "garden",
  "bridge",
  "maple",
  "pine",
];

export function answerFor(field: FieldDefinition, random: Random, email: string): string {
  if (isChoiceType(field.fieldType)) {
    const options = field.options.length > 0 ? field.options : ["yes"];
    if (field.fieldType === "single_choice") return encodeAnswer(field.fieldType, [random.pick(options)]);
    const chosen = options.filter(() => random.chance(0.5));
    return encodeAnswer(field.fieldType, chosen.length > 0 ? chosen : [options[0]]);
  }
  switch (field.fieldType) {
    case "email":
      return email;
    case "number":
      return String(random.int(1, 99));
    case "date":
      return `20${random.int(10, 19)}-0${random.int(1, 9)}-${random.int(10, 28)}`;
    case "phone":
      return `+1 555 01${random.int(10, 99)}`;
    case "textarea":
      return `${random.pick(WORDS)} ${random.pick(WORDS)} ${random.pick(WORDS)}.`;
    default:
      return `${random.pick(WORDS)} ${random.int(1, 999)}`;
  }
}

export interface Random {
  chance(probability: number): boolean;
  int(min: number, max: number): number;
  pick<T>(values: readonly T[]): T;
}

/** mulberry32: small, fast and repeatable for a given seed (not for secrets). */
export function pseudoRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (probability) => next() < probability,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (values) => values[Math.floor(next() * values.length)],
  };
}

export function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}
