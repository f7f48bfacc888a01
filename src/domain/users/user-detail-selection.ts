import { validationFailed } from "../errors";

// Which selectors a get_info `doc` asks for: field keys and system selectors, read once.

export const SYSTEM_SELECTORS = [
  "_allfields",
  "_userforms",
  "_family",
  "_userproducts",
  "_usercart",
  "_userpayments",
  "_utm",
  "_useremails",
] as const;
export type SystemSelector = (typeof SYSTEM_SELECTORS)[number];

/** At most this many selector keys per call (as update's doc). */
export const MAX_SELECTORS = 1000;

export interface DetailSelection {
  /** System selectors asked for. */
  system: Set<SystemSelector>;
  /** Field keys as sent (identifier or mapped name). */
  fieldKeys: string[];
  /** Problems with keys, the same for every user. */
  notices: string[];
}

const TRUE_WORDS = new Set<unknown>([true, 1, "1", "true"]);
const FALSE_WORDS = new Set<unknown>([false, 0, "0", "false", null]);

/** Reads a get_info `doc` (or the selector part of a get_user_list doc): keys set to true are asked for. */
export function readDetailSelection(doc: Record<string, unknown>): DetailSelection {
  const keys = Object.keys(doc);
  if (keys.length > MAX_SELECTORS) {
    throw validationFailed([
      {
        path: ["selectors"],
        reason: "TOO_MANY_ITEMS",
        message: `has ${keys.length} members; at most ${MAX_SELECTORS} are accepted per call`,
      },
    ]);
  }
  const selection: DetailSelection = { system: new Set(), fieldKeys: [], notices: [] };
  for (const key of keys) {
    const value = doc[key];
    const isCartOptions = key === "_usercart" && typeof value === "object" && value !== null && !Array.isArray(value);
    if (FALSE_WORDS.has(value)) continue;
    if (!TRUE_WORDS.has(value) && !isCartOptions) {
      selection.notices.push(`${key}: not read; put true to read it.`);
      continue;
    }
    if ((SYSTEM_SELECTORS as readonly string[]).includes(key)) {
      selection.system.add(key as SystemSelector);
      if (isCartOptions) {
        for (const option of Object.keys(value as object)) {
          selection.notices.push(`_usercart.${option}: unknown option, ignored; the cart is listed in full.`);
        }
      }
    } else if (key.startsWith("_")) {
      selection.notices.push(`${key}: unknown selector; valid ones are ${SYSTEM_SELECTORS.join(", ")} and field keys.`);
    } else {
      selection.fieldKeys.push(key);
    }
  }
  return selection;
}
