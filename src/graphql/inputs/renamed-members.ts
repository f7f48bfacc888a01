import { validationFailed } from "../../domain/errors";
import type { ProblemPath } from "../../domain/problems";
import type { PathNames } from "../../http/problem-paths";

// Members the schema renamed (one name per idea across the schema). The old spelling is
// still accepted for one release and marked @deprecated; the domain commands keep the legacy
// names the REST wire uses, so the new spelling is mapped here, in the one place that knows both.

/** Current name → the deprecated one it replaces. */
export const RENAMED_MEMBERS = {
  productId: "pId",
  quantity: "q",
  categoryId: "catId",
  parentProductId: "parentPId",
} as const;

export type CurrentName = keyof typeof RENAMED_MEMBERS;

/** The deprecation reason of a renamed member, the same sentence for each. */
export const useInstead = (current: CurrentName): string => `Use ${current}; removed in the next release.`;

/**
 * The value of a renamed input member, under whichever spelling was sent. Both at once is refused
 * (a client sending two values for one member has a bug we must not guess about).
 */
export function eitherSpelling(
  input: object,
  current: CurrentName,
  path: ProblemPath,
): { value: unknown; sentOld: boolean } {
  const members = input as Record<string, unknown>;
  const old = RENAMED_MEMBERS[current];
  const value = members[current];
  const oldValue = members[old];
  if (value != null && oldValue != null) {
    throw validationFailed([
      {
        path: [...path, current],
        reason: "CONFLICTING_MEMBERS",
        message: `and ${old} name the same member (${old} is deprecated); give only ${current}`,
      },
    ]);
  }
  return { value: value ?? oldValue, sentOld: oldValue != null };
}

/**
 * How the domain's problems name a renamed member: by the spelling the client used (the current
 * one unless only the deprecated one was sent), so an error points at what the client wrote.
 */
export function namesForSpelling(sentOld: ReadonlySet<CurrentName>, currents: readonly CurrentName[]): PathNames {
  return Object.fromEntries(
    currents.filter((current) => !sentOld.has(current)).map((current) => [RENAMED_MEMBERS[current], current]),
  );
}

/** The input's other members: both spellings of every renamed member left out (the caller maps them). */
export function withoutRenamedMembers(input: object): Record<string, unknown> {
  const spellings = new Set<string>(Object.entries(RENAMED_MEMBERS).flat());
  return Object.fromEntries(Object.entries(input).filter(([name]) => !spellings.has(name)));
}
