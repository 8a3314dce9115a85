// What every emitter gets besides the model.

export interface EmitContext {
  /** The spec as named in headers: relative to the repository root, such as spec/ExternalAPIService.yaml. */
  readonly specFile: string;
  /** Absolute path of templates/ (handlebars templates and the hand-written runtime). */
  readonly templatesDir: string;
}
