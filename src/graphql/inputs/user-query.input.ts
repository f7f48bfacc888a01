import { IsInt, IsOptional, Max, MaxLength, Min, ValidateNested } from "class-validator";
import { GraphQLDateTime } from "graphql-scalars";
import { ArgsType, Field, InputType, Int, registerEnumType } from "type-graphql";
import type { UserOrderKey } from "../../domain/users/user-reads";
import { UserLevelEnum } from "../types/enums.type";

/** Largest page of the users connection; more is refused, not truncated. */
export const MAX_PAGE_SIZE = 100;

/** The page size when a users query gives neither first nor last. */
export const DEFAULT_PAGE_SIZE = 20;

@InputType("UserFilter", { description: "Narrows a users page; absent members do not filter." })
export class UserFilterInput {
  @Field(() => Int, { nullable: true, description: "Users with this status; 0 selects users without a status." })
  @IsOptional()
  @IsInt()
  @Min(0)
  statusId?: number | null;

  @Field(() => Boolean, {
    nullable: true,
    description: "true: only users with an excluding status; false: only the others.",
  })
  excluded?: boolean | null;

  @Field(() => UserLevelEnum, { description: "Only parents (and individuals) or only children.", nullable: true })
  level?: UserLevelEnum | null;

  @Field(() => String, {
    nullable: true,
    description:
      "Words, each of which must start a word of the first name, last name, username or main email (case and accents ignored; words are letters, digits and underscores). Words shorter than 3 characters are left out; a search without a longer word is refused. See docs/graphql.md, Search.",
  })
  @IsOptional()
  @MaxLength(100)
  search?: string | null;

  @Field(() => GraphQLDateTime, {
    nullable: true,
    description:
      "Only users whose registration changed (values, forms, cart, status, emails) at or after this time: User.updatedAt >= updatedSince. Pages keep their order (orderBy).",
  })
  updatedSince?: Date | null;

  @Field(() => Int, { nullable: true, description: "Only users carrying this tag (its Tag.tagId)." })
  @IsOptional()
  @IsInt()
  @Min(1)
  tagId?: number | null;
}

export enum UserOrderFieldEnum {
  UID = "uid",
  APPLICATION_DATE = "applicationDate",
  UPDATED_AT = "updatedAt",
  NAME = "name",
}

// The enum names every order the data layer declares (USER_ORDER_KEYS), and no other: a missing or
// extra one does not compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const everyOrderNamed: Same<`${UserOrderFieldEnum}`, UserOrderKey> = true;
void everyOrderNamed;

export enum OrderDirectionEnum {
  ASC = "asc",
  DESC = "desc",
}

registerEnumType(UserOrderFieldEnum, {
  name: "UserOrderField",
  description: "What a users page is ordered by; the uid breaks ties.",
  valuesConfig: {
    UID: { description: "The registration's uid (the order registrations were made in)." },
    APPLICATION_DATE: { description: "User.applicationDate, then the uid." },
    UPDATED_AT: { description: "User.updatedAt (the last change to the registration), then the uid." },
    NAME: {
      description:
        "User.name (first + last name, else organization name, else username) without case, then the uid. MariaDB/MySQL compare names by the column's collation (accents ignored); SQLite by code point after lower-casing.",
    },
  },
});
registerEnumType(OrderDirectionEnum, {
  name: "OrderDirection",
  description: "Ascending or descending.",
  valuesConfig: {
    ASC: { description: "Smallest (earliest) first." },
    DESC: { description: "Largest (latest) first." },
  },
});

@InputType("UserOrder", {
  description:
    "The order of a users page. A cursor belongs to its order: a cursor of one order given to a page of another is refused.",
})
export class UserOrderInput {
  @Field(() => UserOrderFieldEnum, { description: "What the users are ordered by." })
  field: UserOrderFieldEnum;

  @Field(() => OrderDirectionEnum, { defaultValue: OrderDirectionEnum.ASC, description: "ASC unless given." })
  direction: OrderDirectionEnum;
}

@ArgsType()
export class UserArgs {
  @Field(() => Int, { description: "The project (group_id)." })
  groupId: number;

  @Field(() => Int, { description: "The user (clogin_id)." })
  cloginId: number;
}

@ArgsType()
export class UsersArgs {
  @Field(() => Int, { description: "The project (group_id)." })
  groupId: number;

  @Field(() => Int, {
    nullable: true,
    description: `Forward page size, 1 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when neither first nor last is given.`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  first?: number | null;

  @Field(() => String, {
    nullable: true,
    description: "A cursor (e.g. the endCursor of the previous page): users after it.",
  })
  after?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: `Backward page size, 1 to ${MAX_PAGE_SIZE}: the last users before \`before\` (or of the list).`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  last?: number | null;

  @Field(() => String, {
    nullable: true,
    description: "A cursor (e.g. the startCursor of the next page): users before it.",
  })
  before?: string | null;

  @Field(() => UserFilterInput, {
    nullable: true,
    description: "Which users: status, level, search, tag, updatedSince; absent: all of the project's.",
  })
  @IsOptional()
  @ValidateNested()
  filter?: UserFilterInput | null;

  @Field(() => UserOrderInput, { nullable: true, description: "The page's order; uid ascending when absent." })
  orderBy?: UserOrderInput | null;
}
