import { z } from "zod";
import { parseCommand } from "../../domain/commands/parse-command";
import { listProjectsOf, ProjectListQuery } from "../../domain/projects/projects.service";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { asSent, requiredWireDoc } from "../envelope/members";
import { refusedOutsideUpdate } from "../envelope/refused-members";
import { presentProjectList } from "../presenters/project-envelope";

const getProjectListSchema = z.object({
  group_id: asSent,
  doc: requiredWireDoc,
  mark_forms_complete: refusedOutsideUpdate,
});

/** POST /reg/api2/projects/ (contract §7.4; the record format is ours). */
export const projectsActions: ActionTable = {
  get_project_list: defineAction({
    readOnly: true,
    schema: getProjectListSchema,
    command: ProjectListQuery,
    problemPaths: {
      groupId: "group_id",
      onlyArchived: "doc.only_archived",
      withArchived: "doc.with_archived",
      withGroupTotals: "doc.with_group_totals",
    },
    async run(ctx, input) {
      // Parsed here, not in the service, because the answer echoes the flags as booleans.
      const query = parseCommand(ProjectListQuery, {
        groupId: input.group_id,
        onlyArchived: input.doc.only_archived,
        withArchived: input.doc.with_archived,
        withGroupTotals: input.doc.with_group_totals,
      });
      return presentProjectList(await listProjectsOf(ctx, query), query);
    },
  }),
};
