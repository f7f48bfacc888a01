import type { EntityManager } from "typeorm";
import { readFormsOfProjects, type FormDefinition } from "../../data/forms.data";
import { readStatusesOfProjects } from "../../data/statuses.data";
import { countTags, readTagPages } from "../../data/tags.data";
import type { RequestContext } from "../context";
import { formsARegistrantFills, registrationLevel } from "../forms/form-rules";

// A project's catalogues (statuses, forms, tags) for admin UIs and, for forms, registrant
// portals. The batch reads serve the GraphQL loaders, one statement per list whatever the number
// of projects: they run under a Project that a domain call already read within the caller's scope.

export { type StatusRecord } from "../../data/statuses.data";
export { type TagPage } from "../../data/tags.data";
export type { FormDefinition };

/** Each project's statuses, in creation order. */
export function readProjectStatuses(em: EntityManager, projectIds: readonly number[]) {
  return readStatusesOfProjects(em, projectIds);
}

/** Each project's forms, in form order (every audience and level: see formsVisibleTo). */
export function readProjectForms(em: EntityManager, projectIds: readonly number[]) {
  return readFormsOfProjects(em, projectIds);
}

/** The same page of each project's tags, in id order (backward: the last ones before a tag). */
export function readProjectTagPages(
  em: EntityManager,
  projectIds: readonly number[],
  page: { size: number; afterTagId: number | null; beforeTagId: number | null; backward: boolean },
) {
  return readTagPages(em, projectIds, page);
}

/** How many tags each project has. */
export function countProjectTags(em: EntityManager, projectIds: readonly number[]) {
  return countTags(em, projectIds);
}

/**
 * The forms of a project the caller may see: all of them for an API account (which reached the
 * project in its scope); for a registrant session, those its registration may fill, and none of
 * a project that is not its own.
 */
export function formsVisibleTo(ctx: RequestContext, forms: readonly FormDefinition[]): FormDefinition[] {
  const registrant = ctx.registrant;
  if (!registrant) return [...forms];
  const own = forms.filter((form) => form.projectId === registrant.groupId);
  return formsARegistrantFills(own, registrationLevel(registrant.parentCloginId));
}
