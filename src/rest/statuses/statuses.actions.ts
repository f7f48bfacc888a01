import { z } from "zod";
import { CreateStatusCommand, createStatus } from "../../domain/statuses/statuses.service";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { asSent, requiredWireDoc } from "../envelope/members";
import { presentStatusCreated } from "../presenters/status-envelope";
import { refusedOutsideUpdate } from "../envelope/refused-members";

const createSchema = z.object({
  group_id: asSent,
  doc: requiredWireDoc,
  mark_forms_complete: refusedOutsideUpdate,
});

/** POST /reg/api2/statuses/ (contract §7.3). */
export const statusesActions: ActionTable = {
  create: defineAction({
    schema: createSchema,
    command: CreateStatusCommand,
    problemPaths: { groupId: "group_id", name: "doc.status_name", color: "doc.color", isExcluded: "doc.is_excluded" },
    async run(ctx, input) {
      const status = await createStatus(ctx, {
        groupId: input.group_id,
        name: input.doc.status_name,
        color: input.doc.color,
        isExcluded: input.doc.is_excluded,
      });
      return presentStatusCreated(status);
    },
  }),
};
