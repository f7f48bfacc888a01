import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from "typeorm";
import { Project } from "./project.entity";

// Per-project running totals, so project totals, users totalCount and get_user_list totals read a
// few rows instead of counting every registration, cart line and payment. Registrations fall into
// six buckets by level, own exclusion and (for a child) the parent's exclusion: every list filter
// of get_user_list is a sum of buckets. A project's totals are spread over COUNTER_SLOTS rows
// (`slot`); a write adds its delta to one slot picked at random, at the end of its transaction, so
// concurrent writes to one project rarely wait for the same row; reads sum the slots
// (src/domain/projects/project-counters.ts, docs/counters.md). `regapi recount` rebuilds them.

const CountColumn = () => Column({ type: "bigint", default: 0 });

@Entity("project_counter")
export class ProjectCounter {
  @PrimaryColumn({ type: "int" })
  projectId: number;

  /** 0 … COUNTER_SLOTS - 1 (src/data/project-counters.data.ts); the recount writes slot 0. */
  @PrimaryColumn({ type: "smallint", default: 0 })
  slot: number;

  @ManyToOne(() => Project, { onDelete: "CASCADE" })
  @JoinColumn({ name: "project_id" })
  project?: Relation<Project>;

  /** Parents and individuals whose status does not exclude them. */
  @CountColumn() parentActiveRegistrations: string;
  @CountColumn() parentActiveOrderCents: string;
  @CountColumn() parentActivePaidCents: string;
  /** Parents and individuals with an excluding status. */
  @CountColumn() parentExcludedRegistrations: string;
  @CountColumn() parentExcludedOrderCents: string;
  @CountColumn() parentExcludedPaidCents: string;
  /** Children not excluded, of a parent not excluded. */
  @CountColumn() childActiveRegistrations: string;
  @CountColumn() childActiveOrderCents: string;
  @CountColumn() childActivePaidCents: string;
  /** Excluded children of a parent not excluded. */
  @CountColumn() childExcludedRegistrations: string;
  @CountColumn() childExcludedOrderCents: string;
  @CountColumn() childExcludedPaidCents: string;
  /** Children not excluded, of an excluded parent. */
  @CountColumn() orphanActiveRegistrations: string;
  @CountColumn() orphanActiveOrderCents: string;
  @CountColumn() orphanActivePaidCents: string;
  /** Excluded children of an excluded parent. */
  @CountColumn() orphanExcludedRegistrations: string;
  @CountColumn() orphanExcludedOrderCents: string;
  @CountColumn() orphanExcludedPaidCents: string;
}
