import type { CreatedStatus } from "../../domain/statuses/statuses.service";

/** Legacy statuses `create` answer (contract §7.3): `status_id` is a number here, unlike in meta_info. */
export function presentStatusCreated(status: CreatedStatus) {
  return {
    msg: "Status created successfully.",
    msg_type: "info",
    status_id: status.id,
    success: true,
  };
}
