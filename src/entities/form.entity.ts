import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { FlagColumn, IdColumn, StringColumn } from "./columns";
import { Project } from "./project.entity";

export const FORM_AUDIENCES = ["user", "admin"] as const;
export type FormAudience = (typeof FORM_AUDIENCES)[number];
export const FORM_LEVELS = ["all", "parent", "child"] as const;
export type FormLevel = (typeof FORM_LEVELS)[number];

@Entity("form")
@Index(["projectId", "sortOrder"])
export class Form {
  @PrimaryGeneratedColumn()
  id: number;

  @IdColumn()
  projectId: number;

  @ManyToOne(() => Project, { onDelete: "CASCADE" })
  @JoinColumn({ name: "project_id" })
  project?: Relation<Project>;

  @StringColumn(200)
  name: string;

  @FlagColumn()
  mandatory: boolean;

  /** `user`: filled by the registrant; `admin`: internal, filled by staff. */
  @StringColumn(10, { default: "user" })
  audience: FormAudience;

  /** Which registrations get it in a family project: everyone, parents only or children only. */
  @StringColumn(10, { default: "all" })
  audienceLevel: FormLevel;

  /** Part of a new registration's form set. */
  @FlagColumn({ default: true })
  initial: boolean;

  @IdColumn({ default: 0 })
  sortOrder: number;
}
