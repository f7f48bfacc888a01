import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { DateTimeColumn, FlagColumn, IdColumn, StringColumn, TextColumn } from "./columns";
import { EventRecord } from "./event.entity";
import { Organization } from "./organization.entity";

/** A receiver of an organization's events. */
@Entity("webhook_endpoint")
export class WebhookEndpoint {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @IdColumn()
  organizationId: number;

  @ManyToOne(() => Organization, { onDelete: "CASCADE" })
  @JoinColumn({ name: "organization_id" })
  organization?: Relation<Organization>;

  @StringColumn(2000)
  url: string;

  /** Kept in clear (not hashed): every delivery is signed with it. Shown once, at creation. */
  @StringColumn(100)
  secret: string;

  /** Comma-separated event types the endpoint receives. */
  @TextColumn()
  eventTypes: string;

  /** Comma-separated project ids; null: every project of the organization. */
  @TextColumn({ nullable: true })
  groupIds: string | null;

  @FlagColumn({ default: true })
  active: boolean;

  /** Why the worker switched the endpoint off (a 410), null when it did not. */
  @StringColumn(255, { nullable: true })
  disabledReason: string | null;

  @DateTimeColumn()
  createdAt: Date;
}

export const DELIVERY_STATES = ["pending", "delivered", "failed"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One event to one endpoint: retried until delivered or given up. */
@Entity("webhook_delivery")
@Index(["eventId", "endpointId"], { unique: true })
@Index(["state", "nextAttemptAt"])
@Index(["endpointId", "id"])
export class WebhookDelivery {
  @PrimaryGeneratedColumn()
  id: number;

  @IdColumn()
  eventId: number;

  @ManyToOne(() => EventRecord, { onDelete: "CASCADE" })
  @JoinColumn({ name: "event_id" })
  event?: Relation<EventRecord>;

  @IdColumn()
  endpointId: number;

  @ManyToOne(() => WebhookEndpoint, { onDelete: "CASCADE" })
  @JoinColumn({ name: "endpoint_id" })
  endpoint?: Relation<WebhookEndpoint>;

  @StringColumn(10)
  state: DeliveryState;

  @IdColumn({ default: 0 })
  attemptCount: number;

  /** When a worker may next (re)try; a claim moves it past the send timeout, so a dead worker's claim expires. */
  @DateTimeColumn()
  nextAttemptAt: Date;

  @DateTimeColumn()
  createdAt: Date;

  @DateTimeColumn({ nullable: true })
  deliveredAt: Date | null;
}

/** One try of a delivery: what the receiver answered (or why nothing came back) and how long it took. */
@Entity("webhook_attempt")
@Index(["deliveryId", "id"])
export class WebhookAttempt {
  @PrimaryGeneratedColumn()
  id: number;

  @IdColumn()
  deliveryId: number;

  @ManyToOne(() => WebhookDelivery, { onDelete: "CASCADE" })
  @JoinColumn({ name: "delivery_id" })
  delivery?: Relation<WebhookDelivery>;

  @DateTimeColumn()
  attemptedAt: Date;

  @IdColumn({ nullable: true })
  statusCode: number | null;

  @IdColumn()
  durationMs: number;

  @StringColumn(500, { nullable: true })
  error: string | null;
}
