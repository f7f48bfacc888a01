import { Column, Entity, Index, PrimaryGeneratedColumn } from "typeorm";
import { DateTimeColumn, IdColumn, StringColumn, TextColumn } from "./columns";

/**
 * One Idempotency-Key of one API account (docs/rest-openapi.md): the first request's fingerprint
 * and, once it has answered, its status and body, replayed for repeats until `expiresAt`. The
 * unique index is the lock: whoever inserts the row first runs the request; every other instance
 * waits for `status` to be set.
 */
@Entity("idempotency_key")
@Index(["apiAccountId", "keyHash"], { unique: true })
export class IdempotencyKey {
  @PrimaryGeneratedColumn()
  id: number;

  @IdColumn()
  apiAccountId: number;

  /** SHA-256 (hex) of the key as sent: case-sensitive on every database, whatever its collation. */
  @StringColumn(64)
  keyHash: string;

  /** SHA-256 (hex) of the method, path and canonical JSON of the first request's body. */
  @StringColumn(64)
  requestHash: string;

  /** Null while the first request runs. */
  @Column({ type: "int", nullable: true })
  responseStatus: number | null;

  @StringColumn(100, { nullable: true })
  responseContentType: string | null;

  @TextColumn({ nullable: true })
  responseBody: string | null;

  @DateTimeColumn()
  createdAt: Date;

  @Index()
  @DateTimeColumn()
  expiresAt: Date;
}
