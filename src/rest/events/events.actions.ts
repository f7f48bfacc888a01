import { z } from "zod";
import { EventFeedCommand, listEvents } from "../../domain/events/event-feed";
import { defineAction, type ActionTable } from "../envelope/action-table";
import { asSent, wireDoc } from "../envelope/members";
import { refusedOutsideUpdate } from "../envelope/refused-members";

// POST /reg/api2/events/ (ours, not the original API's: docs/contract.md, docs/event-feed.md).

const listSchema = z.object({
  group_id: asSent,
  doc: wireDoc.nullish(),
  mark_forms_complete: refusedOutsideUpdate,
});

export const eventsActions: ActionTable = {
  list: defineAction({
    readOnly: true,
    groupIdOptional: true,
    schema: listSchema,
    command: EventFeedCommand,
    problemPaths: { groupId: "group_id", after: "doc.after", types: "doc.types", limit: "doc.limit" },
    async run(ctx, input) {
      const doc = input.doc ?? {};
      const page = await listEvents(ctx, {
        groupId: input.group_id,
        after: doc.after,
        types: doc.types,
        limit: doc.limit,
      });
      return {
        success: true,
        msg: "Events.",
        events: page.events.map(({ cursor: _cursor, ...event }) => event),
        end_cursor: page.endCursor,
        has_more: page.hasNextPage,
      };
    },
  }),
};
