export {
  compile,
  isStraightLine,
  render,
  RENDER_LIMITS,
  RenderLimitError,
  syntaxErrors,
  type CompiledTemplate,
  type RenderContext,
  type Rendered,
  type TemplateParts,
} from './templates';
