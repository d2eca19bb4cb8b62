export { compile, render, syntaxErrors, type CompiledTemplate, type Rendered, type TemplateParts } from './templates';
