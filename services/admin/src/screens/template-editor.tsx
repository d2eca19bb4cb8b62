import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link, useParams } from 'react-router';
import { api, describeError } from '../api/client';
import { useLayouts } from '../api/catalog';
import type {
  CreateTemplateRequest,
  DraftPreviewRequest,
  Template,
  TemplateError,
  TemplateFormat,
  TemplateValidation,
  TemplateVariant,
  ValidateTemplateRequest,
} from '../api/types';
import { HtmlEditor, TemplateErrors } from '../components/html-editor';
import { TabList, TabPanel, useTabIds } from '../components/tabs';
import { parseObject, TemplatePreview, type Samples } from '../components/template-preview';
import { Button, Card, describedBy, ErrorState, Field, FieldError, Loading, SelectField, TextField } from '../components/ui';
import type { DiffPart } from '../components/version-diff';
import { EditorHeading, OlderVersionNote, SaveButtons, useVersionedEditor, VersionsPanel } from '../components/versioned-editor';
import { languageTagProblem, LANGUAGE_TAG_MAX_LENGTH } from '../lib/language-tag';

/** The parts one language of a template has: its default's, or a variant's. */
interface LanguageParts {
  subject: string;
  html: string;
  text: string | null;
  layout_id: string | null;
}

/** What the editor shows of a template, saved or not. */
interface TemplateContent extends LanguageParts {
  name: string;
  format: TemplateFormat;
  variants: Array<LanguageParts & { language: string }>;
}

/** A language of the template: a variant's tag, or null for its default. */
type Language = string | null;

const STARTER: TemplateContent = {
  name: 'Welcome',
  format: 'handlebars',
  subject: 'Welcome, {{user.name}}',
  html: '<h1>Hi {{user.name}}</h1>\n<p>Your code is <strong>{{data.code}}</strong>.</p>\n',
  text: null,
  layout_id: null,
  variants: [],
};
/** The starter's HTML as MJML: what a new template switched to MJML starts from. */
const MJML_STARTER =
  '<mjml>\n  <mj-body>\n    <mj-section>\n      <mj-column>\n        <mj-text font-size="20px">Hi {{user.name}}</mj-text>\n        <mj-text>Your code is <strong>{{data.code}}</strong>.</mj-text>\n      </mj-column>\n    </mj-section>\n  </mj-body>\n</mjml>\n';
const FORMAT_LABELS: Record<TemplateFormat, string> = { handlebars: 'Handlebars', mjml: 'MJML' };
const SAMPLE_USER = JSON.stringify({ email: 'ada@example.com', name: 'Ada Lovelace', country: 'GB', language: 'en' }, null, 2);
const SAMPLE_DATA = JSON.stringify({ code: '4711' }, null, 2);
const PREVIEW_DELAY_MS = 400;
/** The tab key of the default parts (variants' keys are their tags, never empty). */
const DEFAULT_TAB = '';

const contentOf = (t: Template): TemplateContent => ({
  name: t.name,
  format: t.format,
  subject: t.subject,
  html: t.html,
  text: t.text,
  layout_id: t.layout_id,
  variants: t.variants.map((v) => ({ language: v.language, subject: v.subject, html: v.html, text: v.text, layout_id: v.layout_id })),
});

/** An empty text part is none: the API derives it from the HTML. */
const textOrNull = (text: string | null): string | null => (text?.trim() ? text : null);

const partsOf = (content: TemplateContent, language: Language): LanguageParts | undefined =>
  language === null ? content : content.variants.find((v) => v.language === language);

const withParts = (content: TemplateContent, language: Language, change: Partial<LanguageParts>): TemplateContent =>
  language === null
    ? { ...content, ...change }
    : { ...content, variants: content.variants.map((v) => (v.language === language ? { ...v, ...change } : v)) };

/** A variant as a save sends it: without a layout_id when it has none. */
const variantBody = (v: TemplateContent['variants'][number]): TemplateVariant => ({
  language: v.language,
  subject: v.subject,
  html: v.html,
  text: textOrNull(v.text),
  ...(v.layout_id !== null ? { layout_id: v.layout_id } : {}),
});

/** What a save sends: every language, an empty text part as none. */
const saveBody = (c: TemplateContent): CreateTemplateRequest => ({
  name: c.name,
  format: c.format,
  subject: c.subject,
  html: c.html,
  text: textOrNull(c.text),
  layout_id: c.layout_id,
  variants: c.variants.map(variantBody),
});

/** The value after it stopped changing for a moment: the preview is asked for once typing pauses. */
function useSettled<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

/** The languages a check was asked about, in its order: its errors name a variant by its place (variants/N/…). */
interface Check {
  request: ValidateTemplateRequest;
  languages: string[];
}

/**
 * What the API is asked about the editor's content once typing pauses: its preview in `language`
 * (which needs a subject, HTML and valid samples) and its check (any part; the samples when they
 * parse). A variant without a subject or HTML yet is left out of both. Nothing while `content` is
 * not known yet (the template loading).
 */
function useDraftRequests(
  content: TemplateContent | undefined,
  samples: Samples,
  language: Language,
): { preview?: DraftPreviewRequest; previewIncomplete: boolean; check?: Check } {
  // Settled as a string: an object would be new on every render and never settle. What the editor
  // first shows is asked about at once; only what is typed then waits.
  const live = content && JSON.stringify({ content: { ...content, name: '' }, ...samples, language });
  const settled = useSettled(live, PREVIEW_DELAY_MS) ?? live;
  return useMemo(() => {
    if (!settled) return { previewIncomplete: false };
    const {
      content: c,
      userJson,
      dataJson,
      language: previewed,
    } = JSON.parse(settled) as { content: TemplateContent; language: Language } & Samples;
    const user = parseObject(userJson);
    const data = parseObject(dataJson);
    const complete = (p: LanguageParts) => p.subject.trim() !== '' && p.html.trim() !== '';
    const variants = c.variants.filter(complete).map(variantBody);
    const shape = { format: c.format, layout_id: c.layout_id, variants };
    const text = textOrNull(c.text);
    const sample = { ...('value' in user ? { user: user.value } : {}), ...('value' in data ? { data: data.value } : {}) };
    const parts = { ...(c.subject ? { subject: c.subject } : {}), ...(c.html ? { html: c.html } : {}), ...(text ? { text } : {}) };
    const previewIncomplete = previewed !== null && !variants.some((v) => v.language === previewed);
    return {
      preview:
        'value' in user && 'value' in data && complete(c)
          ? {
              subject: c.subject,
              html: c.html,
              text,
              ...shape,
              user: user.value,
              data: data.value,
              ...(previewed !== null && !previewIncomplete ? { language: previewed } : {}),
            }
          : undefined,
      previewIncomplete,
      check: Object.keys(parts).length
        ? { request: { ...parts, ...shape, ...sample }, languages: variants.map((v) => v.language) }
        : undefined,
    };
  }, [settled]);
}

/** The parts of a template an error of the check names. */
type PartName = 'subject' | 'html' | 'text' | 'layout_id';
const PART_NAMES: readonly string[] = ['subject', 'html', 'text', 'layout_id'];

/**
 * Where an error of the check belongs: the language and part its field names (`html`,
 * `variants/2/subject`, `layout_id`); undefined for a field the editor has no place for.
 */
function placeOf(field: string, languages: readonly string[]): { language: Language; part: PartName } | undefined {
  const variant = /^variants\/(\d+)\/(\w+)$/.exec(field);
  const [language, part] = variant ? [languages[Number(variant[1])], variant[2]!] : [null, field];
  const name = part === 'layout' ? 'layout_id' : part;
  return language !== undefined && PART_NAMES.includes(name) ? { language, part: name as PartName } : undefined;
}

/** "+ Language": a BCP 47 tag typed, checked as the API checks it, then added as a tab (a copy of the default to translate). */
function AddLanguage({ taken, onAdd }: { taken: readonly string[]; onAdd: (language: string) => void }) {
  const [open, setOpen] = useState(false);
  const [tag, setTag] = useState('');
  const [tried, setTried] = useState(false);
  const problem = languageTagProblem(tag.trim(), taken);
  const add = () => {
    setTried(true);
    if (problem) return;
    onAdd(tag.trim());
    setTag('');
    setTried(false);
    setOpen(false);
  };
  if (!open)
    return (
      <Button className="px-2 py-1 text-xs" onClick={() => setOpen(true)} aria-expanded={false}>
        + Language
      </Button>
    );
  // Not a form of its own (it sits inside the template's): Enter adds the language instead of saving.
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      add();
    }
    if (event.key === 'Escape') setOpen(false);
  };
  return (
    <div className="flex flex-wrap items-start gap-2">
      <div className="w-48">
        <TextField
          label="Language tag"
          value={tag}
          onValue={setTag}
          onKeyDown={onKeyDown}
          maxLength={LANGUAGE_TAG_MAX_LENGTH}
          placeholder="de, pt-BR"
          hint="BCP 47, as users' language is stored"
          error={tried ? problem : undefined}
          autoFocus
        />
      </div>
      <div className="flex gap-2 pt-6">
        <Button onClick={add}>Add language</Button>
        <Button onClick={() => setOpen(false)}>Cancel</Button>
      </div>
    </div>
  );
}

/** Editor of one template (or a new one): its languages in tabs, Handlebars or MJML with highlighting, the API's preview, versions with drafts, diffs and rollback. */
export function TemplateEditorScreen() {
  const { projectId = '', templateId } = useParams();
  const editor = useVersionedEditor<Template, CreateTemplateRequest, TemplateContent>({
    what: 'template',
    projectId,
    id: templateId,
  });
  const { isNew, read: template, save, publish, draft, setDraft } = editor;
  const loaded = template.data;
  const layouts = useLayouts(projectId);
  const shown: TemplateContent = draft ?? (loaded ? contentOf(loaded) : STARTER);
  const dirty = draft !== null;
  const edit = (change: Partial<TemplateContent>) => setDraft({ ...shown, ...change });
  const languages = shown.variants.map((v) => v.language);
  const [tabChoice, setTab] = useState<Language>(null);
  const tab = tabChoice !== null && languages.includes(tabChoice) ? tabChoice : null;
  const [previewChoice, setPreviewLanguage] = useState<Language>(null);
  const previewLanguage = previewChoice !== null && languages.includes(previewChoice) ? previewChoice : null;
  const selectTab = (language: Language) => {
    setTab(language);
    setPreviewLanguage(language);
  };
  const editParts = (change: Partial<LanguageParts>) => setDraft(withParts(shown, tab, change));
  const parts = partsOf(shown, tab)!;
  const [samples, setSamples] = useState<Samples>({ userJson: SAMPLE_USER, dataJson: SAMPLE_DATA });
  const [sidePanel, setSidePanel] = useState<'preview' | 'versions'>('preview');
  const [compared, setCompared] = useState<number[]>([]);
  const languageTabs = useTabIds();
  const sideTabs = useTabIds();

  const requests = useDraftRequests(isNew || loaded ? shown : undefined, samples, previewLanguage);
  // The errors inline while typing: the API's own check, of what the editor shows (saved or not).
  const check = useQuery({
    queryKey: ['projects', projectId, 'templates', 'validate', requests.check],
    queryFn: async () => ({
      validation: await api<TemplateValidation>(`/projects/${projectId}/templates/validate`, {
        method: 'POST',
        body: requests.check!.request,
      }),
      languages: requests.check!.languages,
    }),
    enabled: requests.check !== undefined,
    placeholderData: (previous) => previous,
    retry: false,
  });
  // Nothing to check (every part empty) keeps no earlier answer on screen.
  const checked = requests.check ? check.data : undefined;
  const errors = checked?.validation.errors ?? [];
  const placed = errors.map((error) => ({ error, place: placeOf(error.field, checked?.languages ?? []) }));
  const errorsOf = (language: Language, part?: PartName): TemplateError[] =>
    placed.filter(({ place }) => place?.language === language && (part === undefined || place.part === part)).map(({ error }) => error);
  const unplaced = placed.filter(({ place }) => !place).map(({ error }) => error);

  const saveAs = (asDraft: boolean) => save.mutate({ body: saveBody(shown), asDraft });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    saveAs(!isNew);
  };

  if (!isNew && template.isPending) return <Loading what="the template" />;
  if (!isNew && template.isError) return <ErrorState error={template.error} retry={() => void template.refetch()} />;
  const layoutChoices = layouts.data?.data ?? [];
  const tabKey = tab ?? DEFAULT_TAB;
  const errorCount = (language: Language) => errorsOf(language).length;
  const tabLabel = (label: string, language: Language) => {
    const count = errorCount(language);
    return {
      label: (
        <>
          {label}
          {count > 0 && (
            <span aria-hidden="true" className="rounded-full bg-red-100 px-1.5 text-xs text-red-800 dark:bg-red-900/50 dark:text-red-200">
              {count}
            </span>
          )}
        </>
      ),
      name: count > 0 ? `${label}, ${count === 1 ? '1 error' : `${count} errors`}` : label,
    };
  };
  const diffPartsOf = (t: Template): { parts: DiffPart[]; note?: string } => {
    const p = tab === null ? t : t.variants.find((v) => v.language.toLowerCase() === tab.toLowerCase());
    return {
      parts: [
        { label: 'Subject', text: p?.subject ?? '' },
        { label: 'HTML', text: p?.html ?? '' },
        { label: 'Text', text: p?.text ?? '' },
      ],
      ...(p ? {} : { note: `no ${tab} variant` }),
    };
  };

  const preview = (
    <TemplatePreview
      projectId={projectId}
      request={requests.preview}
      format={shown.format}
      languages={languages}
      language={previewLanguage}
      onLanguage={setPreviewLanguage}
      incomplete={requests.previewIncomplete}
      samples={samples}
      onSamples={(change) => setSamples((current) => ({ ...current, ...change }))}
      variables={checked?.validation.variables}
    />
  );
  return (
    <div className="space-y-4">
      <EditorHeading back={{ to: '/setup#templates', label: 'Setup' }} title={isNew ? 'New template' : shown.name} loaded={loaded} />
      <div className="grid gap-4 lg:grid-cols-2">
        <Card title="Template">
          <form onSubmit={submit} className="space-y-3">
            <OlderVersionNote loaded={loaded} usedBy="sends" />
            <div className="grid gap-3 sm:grid-cols-3">
              <div className="sm:col-span-2">
                <TextField label="Name" value={shown.name} onValue={(name) => edit({ name })} required maxLength={200} />
              </div>
              <SelectField
                label="Format"
                value={shown.format}
                onValue={(value) => {
                  const format = value as TemplateFormat;
                  // An MJML template takes no layout (its mj-body is the whole email): the editor drops them rather than have the save refused.
                  const mjml = format === 'mjml';
                  edit({
                    format,
                    ...(mjml ? { layout_id: null, variants: shown.variants.map((v) => ({ ...v, layout_id: null })) } : {}),
                    // The untouched starter follows the format, so that a new MJML template starts from MJML.
                    ...(mjml && shown.html === STARTER.html ? { html: MJML_STARTER } : {}),
                  });
                }}
              >
                {(Object.keys(FORMAT_LABELS) as TemplateFormat[]).map((format) => (
                  <option key={format} value={format}>
                    {FORMAT_LABELS[format]}
                  </option>
                ))}
              </SelectField>
            </div>
            <div className="flex flex-wrap items-end justify-between gap-2">
              <TabList
                label="Languages"
                ids={languageTabs}
                selected={tabKey}
                onSelect={(key) => selectTab(key === DEFAULT_TAB ? null : key)}
                tabs={[
                  { key: DEFAULT_TAB, ...tabLabel('Default', null) },
                  ...languages.map((language) => ({ key: language, ...tabLabel(language, language) })),
                ]}
              />
              <AddLanguage
                taken={languages}
                onAdd={(language) => {
                  edit({
                    variants: [
                      ...shown.variants,
                      { language, subject: shown.subject, html: shown.html, text: shown.text, layout_id: shown.layout_id },
                    ],
                  });
                  selectTab(language);
                }}
              />
            </div>
            <TabPanel ids={languageTabs} tabKey={tabKey} className="space-y-3">
              <p className="text-xs text-slate-500 dark:text-slate-400">
                {tab === null
                  ? 'Sent when no language matches the user’s (nor its primary subtag).'
                  : tab.includes('-')
                    ? `Sent to users whose language is ${tab}.`
                    : `Sent to users whose language is ${tab}, or ${tab}-… when no variant has that tag.`}
              </p>
              <TextField
                label="Subject"
                value={parts.subject}
                onValue={(subject) => editParts({ subject })}
                required
                maxLength={998}
                error={errorsOf(tab, 'subject').length ? <TemplateErrors errors={errorsOf(tab, 'subject')} /> : undefined}
              />
              <LayoutField
                projectId={projectId}
                value={parts.layout_id}
                onChange={(layout_id) => editParts({ layout_id })}
                choices={layoutChoices}
                mjml={shown.format === 'mjml'}
                errors={errorsOf(tab, 'layout_id')}
                variant={tab !== null}
              />
              {/* One editor per language: its undo history stays with its own text. */}
              <HtmlEditor
                key={tabKey}
                label="HTML"
                hint={
                  shown.format === 'mjml' ? 'An MJML document (<mjml>…): Handlebars runs first, then MJML compiles it to HTML.' : undefined
                }
                value={parts.html}
                onChange={(html) => editParts({ html })}
                errors={errorsOf(tab, 'html')}
              />
              <TextTemplate value={parts.text ?? ''} onChange={(text) => editParts({ text })} errors={errorsOf(tab, 'text')} />
              {tab !== null && (
                <Button tone="danger" onClick={() => edit({ variants: shown.variants.filter((v) => v.language !== tab) })}>
                  Remove {tab}
                </Button>
              )}
            </TabPanel>
            {unplaced.length > 0 && (
              <div className="text-xs text-red-700 dark:text-red-400">
                <TemplateErrors errors={unplaced} />
              </div>
            )}
            <SaveButtons
              what="template"
              loaded={loaded}
              dirty={dirty}
              save={save}
              publish={publish}
              onSave={saveAs}
              onDiscard={() => setDraft(null)}
            >
              {/* Saving stays possible: the API refuses what it cannot render, with its own answer below. */}
              <span role="status" className="text-sm">
                {errors.length > 0 && (
                  <span className="text-red-700 dark:text-red-400">
                    {errors.length === 1 ? '1 error' : `${errors.length} errors`} in the template
                  </span>
                )}
                {check.isError && <span className="text-slate-500 dark:text-slate-400">Not checked: {describeError(check.error)}</span>}
              </span>
            </SaveButtons>
          </form>
        </Card>
        {isNew || !loaded ? (
          <Card title="Preview">{preview}</Card>
        ) : (
          <Card>
            <TabList
              label="Preview or versions"
              ids={sideTabs}
              selected={sidePanel}
              onSelect={(key) => setSidePanel(key as typeof sidePanel)}
              tabs={[
                { key: 'preview', label: 'Preview' },
                { key: 'versions', label: `Versions (${loaded.latest_version})`, name: 'Versions' },
              ]}
            />
            <TabPanel ids={sideTabs} tabKey={sidePanel} className="pt-3">
              {sidePanel === 'preview' ? (
                preview
              ) : (
                <VersionsPanel<Template>
                  editor={editor}
                  loaded={loaded}
                  compared={compared}
                  onCompare={setCompared}
                  partsOf={diffPartsOf}
                  comparing={tab ?? 'default'}
                />
              )}
            </TabPanel>
          </Card>
        )}
      </div>
    </div>
  );
}

/** The layout around one language's body: one of the project's layouts, or none (a variant: the default's). */
function LayoutField({
  projectId,
  value,
  onChange,
  choices,
  mjml,
  errors,
  variant,
}: {
  projectId: string;
  /** A language variant's: without a layout of its own it is sent in the default's. */
  variant: boolean;
  value: string | null;
  onChange: (layoutId: string | null) => void;
  choices: ReadonlyArray<{ id: string; name: string }>;
  /** An MJML template takes no layout. */
  mjml: boolean;
  errors: TemplateError[];
}) {
  const error = errors.length ? <TemplateErrors errors={errors} /> : undefined;
  return (
    <Field label="Layout">
      {(id) => (
        <>
          <select
            id={id}
            value={value ?? ''}
            onChange={(e) => onChange(e.target.value || null)}
            disabled={mjml}
            {...describedBy(id, { hint: true, error })}
            className="w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100"
          >
            <option value="">{variant ? "The default's layout" : 'None'}</option>
            {choices.map((layout) => (
              <option key={layout.id} value={layout.id}>
                {layout.name}
              </option>
            ))}
            {/* A layout the list does not hold (yet): kept, by its id. */}
            {value !== null && !choices.some((layout) => layout.id === value) && <option value={value}>{value}</option>}
          </select>
          <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
            {mjml
              ? 'An MJML template takes no layout: its mj-body is the whole email.'
              : 'The HTML around the body, its {{{content}}} replaced by it.'}
          </p>
          <Link to={`/projects/${projectId}/layouts`} className="text-xs text-indigo-600 hover:underline dark:text-indigo-400">
            Manage layouts
          </Link>
          <FieldError fieldId={id}>{error}</FieldError>
        </>
      )}
    </Field>
  );
}

function TextTemplate({ value, onChange, errors }: { value: string; onChange: (value: string) => void; errors: TemplateError[] }) {
  const error = errors.length ? <TemplateErrors errors={errors} /> : undefined;
  return (
    <Field label="Text part (optional)">
      {(id) => (
        <>
          <textarea
            id={id}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            rows={3}
            placeholder="Left empty, the text part is derived from the HTML."
            {...describedBy(id, { error })}
            className="rounded-md border border-slate-300 bg-white px-3 py-1.5 font-mono text-xs dark:border-slate-600 dark:bg-slate-900"
          />
          <FieldError fieldId={id}>{error}</FieldError>
        </>
      )}
    </Field>
  );
}
