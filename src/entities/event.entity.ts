import { Entity, Index, PrimaryGeneratedColumn } from "typeorm";
import { DateTimeColumn, IdColumn, StringColumn, TextColumn } from "./columns";

/**
 * Something that happened to a registration, recorded in the same transaction as the change
 * (transactional outbox). The delivery worker fans it out to the matching webhook endpoints once
 * (`dispatched_at`), so a rolled-back call leaves no event and a committed one is never lost.
 */
@Entity("event")
@Index(["dispatchedAt", "id"])
export class EventRecord {
  @PrimaryGeneratedColumn()
  id: number;

  /** The id receivers see (`id`, `Regapi-Event-Id`) and dedupe by: a UUID. */
  @Index({ unique: true })
  @StringColumn(36)
  publicId: string;

  @IdColumn()
  organizationId: number;

  @IdColumn()
  groupId: number;

  @StringColumn(40)
  type: string;

  /** The JSON `data` member of the delivered body. */
  @TextColumn()
  data: string;

  @DateTimeColumn()
  createdAt: Date;

  @DateTimeColumn({ nullable: true })
  dispatchedAt: Date | null;
}
