import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from "typeorm";
import { DateTimeColumn, IdColumn, StringColumn, TextColumn } from "./columns";

/**
 * Something that happened to a registration, recorded in the same transaction as the change
 * (transactional outbox). The delivery worker fans it out to the matching webhook endpoints once
 * (`dispatched_at`), so a rolled-back call leaves no event and a committed one is never lost.
 */
@Entity("event")
@Index(["dispatchedAt", "id"])
// The pull feed reads an organization's events (or one project's) in feed order, keyset on the position.
@Index("IDX_event_feed_org", ["organizationId", "feedPosition"])
@Index("IDX_event_feed_group", ["groupId", "feedPosition"])
// Pruning finds the oldest fanned-out events by age.
@Index("IDX_event_created", ["createdAt"])
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

  /**
   * Who caused the event, as JSON (`{"type": "api_account", "api_account_id": 3, "admin_id": 7}`,
   * `{"type": "registrant", …}`, `{"type": "system"}`); null for events recorded before actors were.
   */
  @TextColumn({ nullable: true })
  actor: string | null;

  /**
   * The event's place in the pull feed, given when the delivery worker fans it out (not when it is
   * inserted): positions are handed out under one row lock held to the commit, so they become
   * visible in increasing order and a reader's cursor never passes an event committed later with
   * a lower id. Null until then.
   */
  @Column({ type: "int", nullable: true, unique: true })
  feedPosition: number | null;
}

/**
 * The feed's one row (id 1): the last position handed out and the highest position pruned, so a
 * cursor below it is known to have lost events (CURSOR_EXPIRED).
 */
@Entity("event_feed")
export class EventFeed {
  @PrimaryColumn({ type: "int" })
  id: number;

  @Column({ type: "int", default: 0 })
  lastPosition: number;

  @Column({ type: "int", default: 0 })
  prunedThrough: number;
}
