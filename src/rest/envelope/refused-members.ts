import { z } from "zod";

/** `mark_forms_complete` belongs to users `update` only (contract §4); elsewhere it is a 400. */
export const refusedOutsideUpdate = z
  .undefined({ error: "is valid only with action update on the users endpoint" })
  .optional();
