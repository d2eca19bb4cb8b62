export {
  compile,
  isStraightLine,
  layoutProblems,
  limitsWithin,
  PreparedTemplate,
  render,
  RENDER_LIMITS,
  RenderLimitError,
  syntaxErrors,
  templateProblems,
  TemplateSyntaxError,
  type CompiledTemplate,
  type LayoutParts,
  type LayoutProblem,
  type PartName,
  type Phase,
  type RenderContext,
  type RenderLimits,
  type Rendered,
  type TemplateFormat,
  type TemplateParts,
  type TemplateProblem,
} from './templates';
export { renderErrorSite, templateReads, templateVariables, type RenderErrorSite, type TemplateReads } from './variables';
export {
  ENGINE_DEFAULTS,
  engineOptionsFrom,
  TemplateEngine,
  type EngineTemplate,
  type Measurement,
  type Patience,
  type TemplateEngineOptions,
  type TemplateEngineSettings,
} from './engine';
export { TenantBusyError } from './lanes';
export { variantFor } from './variants';
export { sampleContext, SAMPLE_LIST_ITEMS } from './sample';
export { guardUrls, isSafeUrl } from './url-guard';
export { loopHeld, threadCpuMs } from './thread-cpu';
