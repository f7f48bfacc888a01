import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { IdColumn, StringColumn } from "./columns";
import { Project } from "./project.entity";

@Entity("tag")
export class Tag {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @IdColumn()
  projectId: number;

  @ManyToOne(() => Project, { onDelete: "CASCADE" })
  @JoinColumn({ name: "project_id" })
  project?: Relation<Project>;

  @StringColumn(100)
  name: string;
}
