import { Ctx, FieldResolver, Resolver, Root } from "type-graphql";
import { missingMandatoryFields } from "../../domain/users/user-reads";
import type { GraphqlContext } from "../context";
import { FormFieldType, FormType, UserFormType } from "../types/form.type";

@Resolver(() => FormType)
export class FormResolver {
  @FieldResolver(() => [FormFieldType], { description: "The form's fields in form order." })
  async fields(@Root() form: FormType, @Ctx() ctx: GraphqlContext): Promise<FormFieldType[]> {
    return (await ctx.loaders.fieldsOfForm.load(form.id)) as FormFieldType[];
  }
}

@Resolver(() => UserFormType)
export class UserFormResolver {
  @FieldResolver(() => [FormFieldType], {
    description: "Mandatory fields of this form that hold no answer for this user, in form order.",
  })
  async missingMandatoryFields(@Root() entry: UserFormType, @Ctx() ctx: GraphqlContext): Promise<FormFieldType[]> {
    const [fields, values] = await Promise.all([
      ctx.loaders.fieldsOfForm.load(entry.form.id),
      ctx.loaders.fieldValues.load(entry.uid),
    ]);
    return missingMandatoryFields(fields, values) as FormFieldType[];
  }
}
