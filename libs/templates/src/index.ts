export {
  compile,
  render,
  RENDER_LIMITS,
  RenderLimitError,
  syntaxErrors,
  type CompiledTemplate,
  type Rendered,
  type TemplateParts,
} from './templates';
