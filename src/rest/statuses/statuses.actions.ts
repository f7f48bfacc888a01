import { z } from "zod";
import { createStatus } from "../../domain/statuses/statuses.service";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { requiredWireDoc, wireInteger } from "../envelope/members";
import { presentStatusCreated } from "../presenters/status-envelope";
import { refusedOutsideUpdate } from "../envelope/refused-members";

// The members of `doc` are passed as sent: createStatus owns every rule about them, so REST,
// GraphQL and the CLI report the same problems under the same `doc.*` paths.
const createSchema = z.object({
  group_id: wireInteger,
  doc: requiredWireDoc,
  mark_forms_complete: refusedOutsideUpdate,
});

/** POST /reg/api2/statuses/ (contract §7.3). */
export const statusesActions: ActionTable = {
  create: defineAction({
    schema: createSchema,
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
