import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import type { CreateLayoutRequest, Layout } from '../api/types';
import { HtmlEditor, TemplateErrors, type PartError } from '../components/html-editor';
import { Card, describedBy, ErrorState, Field, FieldError, Loading, TextField } from '../components/ui';
import { EditorHeading, OlderVersionNote, SaveButtons, useVersionedEditor, VersionsPanel } from '../components/versioned-editor';

/** Where a layout puts the template's rendered body (the API's LAYOUT_CONTENT_SLOT). */
const CONTENT_SLOT = '{{{content}}}';

const STARTER: CreateLayoutRequest = {
  name: 'Branded',
  // No inline styles: the template editor's preview takes the panel's Content-Security-Policy, which refuses them.
  html: `<!doctype html>\n<html>\n  <body>\n    <header><strong>Acme</strong></header>\n    ${CONTENT_SLOT}\n    <footer>Sent to {{user.email}}</footer>\n  </body>\n</html>\n`,
  text: null,
};

/** What is wrong with where a part puts the body, before the API is asked: the slot must be there exactly once. */
function slotErrors(part: string | null | undefined, optional: boolean): PartError[] {
  if (optional && !part?.trim()) return [];
  const count = (part ?? '').split(CONTENT_SLOT).length - 1;
  return count === 1
    ? []
    : [
        {
          line: null,
          column: null,
          message: `${CONTENT_SLOT} must be in it exactly once (where the template's body goes); it is there ${count} times.`,
        },
      ];
}

/** Editor of one layout (or a new one): its HTML and text around {{{content}}}, saved as drafts, published, rolled back. */
export function LayoutEditorScreen() {
  const { projectId = '', layoutId } = useParams();
  const editor = useVersionedEditor<Layout, CreateLayoutRequest, CreateLayoutRequest>({
    what: 'layout',
    projectId,
    id: layoutId,
  });
  const { isNew, read: layout, save, publish, draft, setDraft } = editor;
  const loaded = layout.data;
  const shown: CreateLayoutRequest = draft ?? (loaded ? { name: loaded.name, html: loaded.html, text: loaded.text } : STARTER);
  const dirty = draft !== null;
  const edit = (change: Partial<CreateLayoutRequest>) => setDraft({ ...shown, ...change });
  const [compared, setCompared] = useState<number[]>([]);
  const saveAs = (asDraft: boolean) => save.mutate({ body: { ...shown, text: shown.text?.trim() ? shown.text : null }, asDraft });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    saveAs(!isNew);
  };

  if (!isNew && layout.isPending) return <Loading what="the layout" />;
  if (!isNew && layout.isError) return <ErrorState error={layout.error} retry={() => void layout.refetch()} />;
  const textErrors = slotErrors(shown.text, true);
  const textError = textErrors.length ? <TemplateErrors errors={textErrors} /> : undefined;
  return (
    <div className="space-y-4">
      <EditorHeading
        back={{ to: `/projects/${projectId}/layouts`, label: 'Layouts' }}
        title={isNew ? 'New layout' : shown.name}
        loaded={loaded}
      />
      <div className="grid gap-4 lg:grid-cols-2">
        <Card title="Layout">
          <form onSubmit={submit} className="space-y-3">
            <OlderVersionNote loaded={loaded} usedBy="templates" />
            <TextField label="Name" value={shown.name} onValue={(name) => edit({ name })} required maxLength={200} />
            <HtmlEditor
              value={shown.html}
              onChange={(html) => edit({ html })}
              hint={`Handlebars HTML; ${CONTENT_SLOT} is where each template's body goes.`}
              errors={slotErrors(shown.html, false)}
            />
            <Field label="Text part (optional)">
              {(id) => (
                <>
                  <textarea
                    id={id}
                    value={shown.text ?? ''}
                    onChange={(e) => edit({ text: e.target.value })}
                    rows={4}
                    placeholder={`Left empty, the template's text part is sent unwrapped. Else with ${CONTENT_SLOT} where it goes.`}
                    {...describedBy(id, { error: textError })}
                    className="rounded-md border border-slate-300 bg-white px-3 py-1.5 font-mono text-xs dark:border-slate-600 dark:bg-slate-900"
                  />
                  <FieldError fieldId={id}>{textError}</FieldError>
                </>
              )}
            </Field>
            <SaveButtons
              what="layout"
              loaded={loaded}
              dirty={dirty}
              save={save}
              publish={publish}
              onSave={saveAs}
              onDiscard={() => setDraft(null)}
            />
          </form>
        </Card>
        {loaded && (
          <Card title="Versions">
            <VersionsPanel<Layout>
              editor={editor}
              loaded={loaded}
              compared={compared}
              onCompare={setCompared}
              partsOf={(l) => ({
                parts: [
                  { label: 'HTML', text: l.html },
                  { label: 'Text', text: l.text ?? '' },
                ],
              })}
            />
          </Card>
        )}
      </div>
    </div>
  );
}
