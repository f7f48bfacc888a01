import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from "typeorm";
import { Registration } from "./registration.entity";
import { Tag } from "./tag.entity";

@Entity("registration_tag")
export class RegistrationTag {
  @PrimaryColumn({ type: "int" })
  registrationId: number;

  @PrimaryColumn({ type: "int" })
  @Index()
  tagId: number;

  @ManyToOne(() => Registration, { onDelete: "CASCADE" })
  @JoinColumn({ name: "registration_id" })
  registration?: Relation<Registration>;

  @ManyToOne(() => Tag, { onDelete: "CASCADE" })
  @JoinColumn({ name: "tag_id" })
  tag?: Relation<Tag>;
}
