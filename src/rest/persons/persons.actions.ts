import { z } from "zod";
import { erasePerson, exportPerson, PersonCommand } from "../../domain/persons/person-data";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { asSent } from "../envelope/members";
import { refusedOutsideUpdate } from "../envelope/refused-members";

const personSchema = z.object({
  group_id: asSent,
  clogin_id: asSent,
  mark_forms_complete: refusedOutsideUpdate,
});
const problemPaths = { groupId: "group_id", cloginId: "clogin_id" };

/** POST /reg/api2/persons/ (ours, not in the legacy interface): a person's data rights. */
export const personsActions: ActionTable = {
  export: defineAction({
    // A read, and its answer is everything about a person: never stored for an Idempotency-Key replay.
    readOnly: true,
    schema: personSchema,
    command: PersonCommand,
    problemPaths,
    async run(ctx, input) {
      const document = await exportPerson(ctx, { groupId: input.group_id, cloginId: input.clogin_id });
      return { success: true, person_export: document };
    },
  }),
  erase: defineAction({
    schema: personSchema,
    command: PersonCommand,
    problemPaths,
    async run(ctx, input) {
      const erasure = await erasePerson(ctx, { groupId: input.group_id, cloginId: input.clogin_id });
      const counts = erasure.erased;
      return {
        success: true,
        msg: `Person ${erasure.cloginId} erased.`,
        msg_type: "info",
        clogin_id: erasure.cloginId,
        group_ids: erasure.groupIds,
        erased: {
          field_values: counts.fieldValues,
          forms: counts.forms,
          emails: counts.emails,
          emails_sent: counts.outboxEmails,
          tags: counts.tags,
          comments: counts.comments,
          sessions: counts.sessions,
          trigger_firings: counts.triggerFirings,
          cart_lines_anonymized: counts.cartLinesAnonymized,
          payments_anonymized: counts.paymentsAnonymized,
          events_scrubbed: counts.eventsScrubbed,
          idempotency_answers_removed: counts.idempotencyAnswersRemoved,
        },
      };
    },
  }),
};
