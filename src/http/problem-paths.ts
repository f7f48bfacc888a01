import { formatPath, summarizeProblems, type Problem, type RenderedProblem } from "../domain/problems";

/**
 * How one transport names the members of one command: each domain path segment found here is
 * replaced by its wire name (`emails` → `doc.email_list`, `adminId` → `admin_id`); an empty name
 * drops the segment. Segments not listed keep their domain name.
 */
export type PathNames = Readonly<Record<string, string>>;

export interface PathRendering {
  /** Put before every path, e.g. `input` for a GraphQL input argument. */
  prefix?: string;
  names?: PathNames;
}

export function renderPath(path: Problem["path"], rendering: PathRendering = {}): string {
  const segments: (string | number)[] = rendering.prefix ? [rendering.prefix] : [];
  for (const segment of path) {
    const named = typeof segment === "string" ? (rendering.names?.[segment] ?? segment) : segment;
    if (named === "") continue;
    if (typeof named === "string") segments.push(...named.split("."));
    else segments.push(named);
  }
  return formatPath(segments);
}

/** Problems with their paths in the transport's names, and the one summary message built from them. */
export function renderProblems(
  problems: readonly Problem[],
  rendering: PathRendering = {},
): { message: string; problems: RenderedProblem[] } {
  const rendered = problems.map((problem) => ({ path: renderPath(problem.path, rendering), message: problem.message }));
  return { message: summarizeProblems(rendered), problems: rendered };
}
