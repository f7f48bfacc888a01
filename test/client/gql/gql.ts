/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query UserWithForms($groupId: Int!, $cloginId: Int!) {\n    user(groupId: $groupId, cloginId: $cloginId) {\n      id\n      uid\n      cloginId\n      name\n      metaInfo {\n        id\n        completedForms\n        totalForms\n        status {\n          id\n          name\n        }\n      }\n      forms {\n        id\n        completed\n        form {\n          id\n          formId\n          name\n          fields {\n            id\n            identifier\n            label\n          }\n        }\n      }\n      fieldValues {\n        id\n        text\n        choices\n        field {\n          id\n          identifier\n        }\n      }\n      children {\n        id\n        cloginId\n      }\n    }\n  }\n": typeof types.UserWithFormsDocument,
    "\n  mutation MarkFormsComplete($input: MarkFormsCompleteInput!) {\n    markFormsComplete(input: $input) {\n      markedComplete\n      user {\n        id\n        metaInfo {\n          id\n          completedForms\n        }\n        forms {\n          id\n          completed\n          completedAt\n        }\n      }\n    }\n  }\n": typeof types.MarkFormsCompleteDocument,
    "\n  query UsersPage($groupId: Int!, $first: Int, $after: String, $last: Int, $before: String) {\n    users(groupId: $groupId, first: $first, after: $after, last: $last, before: $before) {\n      edges {\n        cursor\n        node {\n          id\n          cloginId\n          name\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n": typeof types.UsersPageDocument,
    "\n  query NodeById($id: ID!) {\n    node(id: $id) {\n      __typename\n      id\n      ... on User {\n        cloginId\n        metaInfo {\n          id\n          completedForms\n        }\n      }\n    }\n  }\n": typeof types.NodeByIdDocument,
    "\n  query ProjectTags($groupId: Int!, $first: Int, $after: String) {\n    project(groupId: $groupId) {\n      id\n      name\n      tags(first: $first, after: $after) {\n        edges {\n          cursor\n          node {\n            id\n            tagId\n            name\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n      }\n    }\n  }\n": typeof types.ProjectTagsDocument,
    "\n  subscription RegistrationChanged($groupId: Int!) {\n    registrationChanged(groupId: $groupId) {\n      eventId\n      type\n      createdAt\n      groupId\n      cloginId\n      actor\n      data\n      cursor\n    }\n  }\n": typeof types.RegistrationChangedDocument,
    "\n  subscription UserChanged($groupId: Int!, $cloginId: Int!) {\n    userChanged(groupId: $groupId, cloginId: $cloginId) {\n      eventId\n      type\n      cloginId\n      data\n      cursor\n    }\n  }\n": typeof types.UserChangedDocument,
    "\n  query UserCard($groupId: Int!, $cloginId: Int!) {\n    user(groupId: $groupId, cloginId: $cloginId) {\n      id\n      cloginId\n      firstName\n      metaInfo {\n        id\n        updatedAt\n      }\n      emails {\n        id\n        subject\n      }\n    }\n  }\n": typeof types.UserCardDocument,
    "\n  subscription UserChangedWithUser($groupId: Int!, $cloginId: Int!) {\n    userChanged(groupId: $groupId, cloginId: $cloginId) {\n      eventId\n      type\n      user {\n        id\n        cloginId\n        firstName\n        metaInfo {\n          id\n          updatedAt\n        }\n        emails {\n          id\n          subject\n        }\n      }\n    }\n  }\n": typeof types.UserChangedWithUserDocument,
    "\n  subscription RegistrationChangedWithUser($groupId: Int!) {\n    registrationChanged(groupId: $groupId) {\n      eventId\n      type\n      cloginId\n      user {\n        id\n        cloginId\n        firstName\n        metaInfo {\n          id\n          updatedAt\n        }\n        emails {\n          id\n          subject\n        }\n      }\n    }\n  }\n": typeof types.RegistrationChangedWithUserDocument,
};
const documents: Documents = {
    "\n  query UserWithForms($groupId: Int!, $cloginId: Int!) {\n    user(groupId: $groupId, cloginId: $cloginId) {\n      id\n      uid\n      cloginId\n      name\n      metaInfo {\n        id\n        completedForms\n        totalForms\n        status {\n          id\n          name\n        }\n      }\n      forms {\n        id\n        completed\n        form {\n          id\n          formId\n          name\n          fields {\n            id\n            identifier\n            label\n          }\n        }\n      }\n      fieldValues {\n        id\n        text\n        choices\n        field {\n          id\n          identifier\n        }\n      }\n      children {\n        id\n        cloginId\n      }\n    }\n  }\n": types.UserWithFormsDocument,
    "\n  mutation MarkFormsComplete($input: MarkFormsCompleteInput!) {\n    markFormsComplete(input: $input) {\n      markedComplete\n      user {\n        id\n        metaInfo {\n          id\n          completedForms\n        }\n        forms {\n          id\n          completed\n          completedAt\n        }\n      }\n    }\n  }\n": types.MarkFormsCompleteDocument,
    "\n  query UsersPage($groupId: Int!, $first: Int, $after: String, $last: Int, $before: String) {\n    users(groupId: $groupId, first: $first, after: $after, last: $last, before: $before) {\n      edges {\n        cursor\n        node {\n          id\n          cloginId\n          name\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n": types.UsersPageDocument,
    "\n  query NodeById($id: ID!) {\n    node(id: $id) {\n      __typename\n      id\n      ... on User {\n        cloginId\n        metaInfo {\n          id\n          completedForms\n        }\n      }\n    }\n  }\n": types.NodeByIdDocument,
    "\n  query ProjectTags($groupId: Int!, $first: Int, $after: String) {\n    project(groupId: $groupId) {\n      id\n      name\n      tags(first: $first, after: $after) {\n        edges {\n          cursor\n          node {\n            id\n            tagId\n            name\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n      }\n    }\n  }\n": types.ProjectTagsDocument,
    "\n  subscription RegistrationChanged($groupId: Int!) {\n    registrationChanged(groupId: $groupId) {\n      eventId\n      type\n      createdAt\n      groupId\n      cloginId\n      actor\n      data\n      cursor\n    }\n  }\n": types.RegistrationChangedDocument,
    "\n  subscription UserChanged($groupId: Int!, $cloginId: Int!) {\n    userChanged(groupId: $groupId, cloginId: $cloginId) {\n      eventId\n      type\n      cloginId\n      data\n      cursor\n    }\n  }\n": types.UserChangedDocument,
    "\n  query UserCard($groupId: Int!, $cloginId: Int!) {\n    user(groupId: $groupId, cloginId: $cloginId) {\n      id\n      cloginId\n      firstName\n      metaInfo {\n        id\n        updatedAt\n      }\n      emails {\n        id\n        subject\n      }\n    }\n  }\n": types.UserCardDocument,
    "\n  subscription UserChangedWithUser($groupId: Int!, $cloginId: Int!) {\n    userChanged(groupId: $groupId, cloginId: $cloginId) {\n      eventId\n      type\n      user {\n        id\n        cloginId\n        firstName\n        metaInfo {\n          id\n          updatedAt\n        }\n        emails {\n          id\n          subject\n        }\n      }\n    }\n  }\n": types.UserChangedWithUserDocument,
    "\n  subscription RegistrationChangedWithUser($groupId: Int!) {\n    registrationChanged(groupId: $groupId) {\n      eventId\n      type\n      cloginId\n      user {\n        id\n        cloginId\n        firstName\n        metaInfo {\n          id\n          updatedAt\n        }\n        emails {\n          id\n          subject\n        }\n      }\n    }\n  }\n": types.RegistrationChangedWithUserDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query UserWithForms($groupId: Int!, $cloginId: Int!) {\n    user(groupId: $groupId, cloginId: $cloginId) {\n      id\n      uid\n      cloginId\n      name\n      metaInfo {\n        id\n        completedForms\n        totalForms\n        status {\n          id\n          name\n        }\n      }\n      forms {\n        id\n        completed\n        form {\n          id\n          formId\n          name\n          fields {\n            id\n            identifier\n            label\n          }\n        }\n      }\n      fieldValues {\n        id\n        text\n        choices\n        field {\n          id\n          identifier\n        }\n      }\n      children {\n        id\n        cloginId\n      }\n    }\n  }\n"): (typeof documents)["\n  query UserWithForms($groupId: Int!, $cloginId: Int!) {\n    user(groupId: $groupId, cloginId: $cloginId) {\n      id\n      uid\n      cloginId\n      name\n      metaInfo {\n        id\n        completedForms\n        totalForms\n        status {\n          id\n          name\n        }\n      }\n      forms {\n        id\n        completed\n        form {\n          id\n          formId\n          name\n          fields {\n            id\n            identifier\n            label\n          }\n        }\n      }\n      fieldValues {\n        id\n        text\n        choices\n        field {\n          id\n          identifier\n        }\n      }\n      children {\n        id\n        cloginId\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation MarkFormsComplete($input: MarkFormsCompleteInput!) {\n    markFormsComplete(input: $input) {\n      markedComplete\n      user {\n        id\n        metaInfo {\n          id\n          completedForms\n        }\n        forms {\n          id\n          completed\n          completedAt\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation MarkFormsComplete($input: MarkFormsCompleteInput!) {\n    markFormsComplete(input: $input) {\n      markedComplete\n      user {\n        id\n        metaInfo {\n          id\n          completedForms\n        }\n        forms {\n          id\n          completed\n          completedAt\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query UsersPage($groupId: Int!, $first: Int, $after: String, $last: Int, $before: String) {\n    users(groupId: $groupId, first: $first, after: $after, last: $last, before: $before) {\n      edges {\n        cursor\n        node {\n          id\n          cloginId\n          name\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query UsersPage($groupId: Int!, $first: Int, $after: String, $last: Int, $before: String) {\n    users(groupId: $groupId, first: $first, after: $after, last: $last, before: $before) {\n      edges {\n        cursor\n        node {\n          id\n          cloginId\n          name\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NodeById($id: ID!) {\n    node(id: $id) {\n      __typename\n      id\n      ... on User {\n        cloginId\n        metaInfo {\n          id\n          completedForms\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query NodeById($id: ID!) {\n    node(id: $id) {\n      __typename\n      id\n      ... on User {\n        cloginId\n        metaInfo {\n          id\n          completedForms\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProjectTags($groupId: Int!, $first: Int, $after: String) {\n    project(groupId: $groupId) {\n      id\n      name\n      tags(first: $first, after: $after) {\n        edges {\n          cursor\n          node {\n            id\n            tagId\n            name\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProjectTags($groupId: Int!, $first: Int, $after: String) {\n    project(groupId: $groupId) {\n      id\n      name\n      tags(first: $first, after: $after) {\n        edges {\n          cursor\n          node {\n            id\n            tagId\n            name\n          }\n        }\n        pageInfo {\n          hasNextPage\n          hasPreviousPage\n          startCursor\n          endCursor\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription RegistrationChanged($groupId: Int!) {\n    registrationChanged(groupId: $groupId) {\n      eventId\n      type\n      createdAt\n      groupId\n      cloginId\n      actor\n      data\n      cursor\n    }\n  }\n"): (typeof documents)["\n  subscription RegistrationChanged($groupId: Int!) {\n    registrationChanged(groupId: $groupId) {\n      eventId\n      type\n      createdAt\n      groupId\n      cloginId\n      actor\n      data\n      cursor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription UserChanged($groupId: Int!, $cloginId: Int!) {\n    userChanged(groupId: $groupId, cloginId: $cloginId) {\n      eventId\n      type\n      cloginId\n      data\n      cursor\n    }\n  }\n"): (typeof documents)["\n  subscription UserChanged($groupId: Int!, $cloginId: Int!) {\n    userChanged(groupId: $groupId, cloginId: $cloginId) {\n      eventId\n      type\n      cloginId\n      data\n      cursor\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query UserCard($groupId: Int!, $cloginId: Int!) {\n    user(groupId: $groupId, cloginId: $cloginId) {\n      id\n      cloginId\n      firstName\n      metaInfo {\n        id\n        updatedAt\n      }\n      emails {\n        id\n        subject\n      }\n    }\n  }\n"): (typeof documents)["\n  query UserCard($groupId: Int!, $cloginId: Int!) {\n    user(groupId: $groupId, cloginId: $cloginId) {\n      id\n      cloginId\n      firstName\n      metaInfo {\n        id\n        updatedAt\n      }\n      emails {\n        id\n        subject\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription UserChangedWithUser($groupId: Int!, $cloginId: Int!) {\n    userChanged(groupId: $groupId, cloginId: $cloginId) {\n      eventId\n      type\n      user {\n        id\n        cloginId\n        firstName\n        metaInfo {\n          id\n          updatedAt\n        }\n        emails {\n          id\n          subject\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription UserChangedWithUser($groupId: Int!, $cloginId: Int!) {\n    userChanged(groupId: $groupId, cloginId: $cloginId) {\n      eventId\n      type\n      user {\n        id\n        cloginId\n        firstName\n        metaInfo {\n          id\n          updatedAt\n        }\n        emails {\n          id\n          subject\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription RegistrationChangedWithUser($groupId: Int!) {\n    registrationChanged(groupId: $groupId) {\n      eventId\n      type\n      cloginId\n      user {\n        id\n        cloginId\n        firstName\n        metaInfo {\n          id\n          updatedAt\n        }\n        emails {\n          id\n          subject\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription RegistrationChangedWithUser($groupId: Int!) {\n    registrationChanged(groupId: $groupId) {\n      eventId\n      type\n      cloginId\n      user {\n        id\n        cloginId\n        firstName\n        metaInfo {\n          id\n          updatedAt\n        }\n        emails {\n          id\n          subject\n        }\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;