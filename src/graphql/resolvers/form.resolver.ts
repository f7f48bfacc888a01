import { Ctx, FieldResolver, Resolver, Root } from "type-graphql";
import { missingMandatoryFields } from "../../domain/forms/form-rules";
import type { GraphqlContext } from "../context";
import { FormFieldType, FormType, UserFormType } from "../types/form.type";
import { presentField } from "./present";

@Resolver(() => FormType)
export class FormResolver {
  @FieldResolver(() => [FormFieldType], { description: "The form's fields in form order." })
  async fields(@Root() form: FormType, @Ctx() ctx: GraphqlContext): Promise<FormFieldType[]> {
    return (await ctx.loaders.fieldsOfForm.load(form.formId)).map((field) => presentField(field, form.groupId));
  }
}

@Resolver(() => UserFormType)
export class UserFormResolver {
  @FieldResolver(() => [FormFieldType], {
    description: "Mandatory fields of this form that hold no answer for this user, in form order.",
  })
  async missingMandatoryFields(@Root() entry: UserFormType, @Ctx() ctx: GraphqlContext): Promise<FormFieldType[]> {
    const [fields, values] = await Promise.all([
      ctx.loaders.fieldsOfForm.load(entry.form.formId),
      ctx.loaders.fieldValues.load(entry.uid),
    ]);
    const answers = new Map(values.map((value) => [value.field.id, value.answer]));
    return missingMandatoryFields(fields, (fieldId) => answers.get(fieldId)).map((field) =>
      presentField(field, entry.groupId),
    );
  }
}
