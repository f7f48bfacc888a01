import { z } from "zod";
import { listProjects } from "../../domain/projects/projects.service";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { requiredWireDoc, wireFlag, wireInteger } from "../envelope/members";
import { refusedOutsideUpdate } from "../envelope/refused-members";
import { presentProjectList } from "../presenters/project-envelope";

const getProjectListSchema = z.object({
  group_id: wireInteger,
  doc: requiredWireDoc.pipe(
    z.object({
      only_archived: wireFlag(false),
      with_archived: wireFlag(false),
      with_group_totals: wireFlag(false),
    }),
  ),
  mark_forms_complete: refusedOutsideUpdate,
});

/** POST /reg/api2/projects/ (contract §7.4; the record format is ours). */
export const projectsActions: ActionTable = {
  get_project_list: defineAction({
    schema: getProjectListSchema,
    async run(ctx, input) {
      const query = {
        groupId: input.group_id,
        onlyArchived: input.doc.only_archived,
        withArchived: input.doc.with_archived,
        withGroupTotals: input.doc.with_group_totals,
      };
      return presentProjectList(await listProjects(ctx, query), query);
    },
  }),
};
