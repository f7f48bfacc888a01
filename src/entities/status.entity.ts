import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { FlagColumn, IdColumn, StringColumn } from "./columns";
import { Project } from "./project.entity";

/** A label applied to registrations; an excluding status takes them out of active counts. */
@Entity("status")
@Index(["projectId", "nameKey"], { unique: true })
export class Status {
  @PrimaryGeneratedColumn()
  id: number;

  @IdColumn()
  projectId: number;

  @ManyToOne(() => Project, { onDelete: "CASCADE" })
  @JoinColumn({ name: "project_id" })
  project?: Relation<Project>;

  @StringColumn(100)
  name: string;

  /** Lower-cased name: the unique index makes names case-insensitively unique, even under races. */
  @StringColumn(100)
  nameKey: string;

  @StringColumn(7)
  color: string;

  @FlagColumn()
  isExcluded: boolean;
}
