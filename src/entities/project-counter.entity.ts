import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, type Relation } from "typeorm";
import { Project } from "./project.entity";

// Per-project running totals, so project totals, users totalCount and get_user_list totals read
// one row instead of counting every registration, cart line and payment. Registrations fall into
// six buckets by level, own exclusion and (for a child) the parent's exclusion: every list filter
// of get_user_list is a sum of buckets. Maintained by relative updates in the transaction of each
// write (src/domain/projects/project-counters.ts); `regapi recount` rebuilds them.

const CountColumn = () => Column({ type: "bigint", default: 0 });

@Entity("project_counter")
export class ProjectCounter {
  @PrimaryColumn({ type: "int" })
  projectId: number;

  @OneToOne(() => Project, { onDelete: "CASCADE" })
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
