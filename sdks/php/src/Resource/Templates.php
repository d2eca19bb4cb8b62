<?php

declare(strict_types=1);

namespace Postbus\Resource;

/**
 * Templates: Handlebars (or MJML) subject, HTML and text, {name, subject, html, text?, format?,
 * layout_id?, variants?}. format "mjml": the html is an MJML document, compiled to HTML; layout_id:
 * a layout whose {{{content}}} receives the rendered body; variants: a list of {language, subject,
 * html, text?, layout_id?}, sent to users of that language (the template's own parts are the
 * default). Versioned: save() with 'draft' => true keeps a version unpublished until publish().
 * Needs a key of scope "full".
 */
final class Templates extends VersionedResource
{
    protected const COLLECTION = 'templates';

    /**
     * Renders a version (the newest by default) as a send would: POST …/templates/{templateId}/preview.
     *
     * @param array<string, mixed> $request user, data (arrays, {{user.*}} and {{data.*}}), language (the variant
     *                                      a send in that language uses), version
     * @param array<string, mixed> $options idempotency_key, timeout, max_retries
     * @return array{subject: string, html: string, text: string}
     */
    public function preview(string $projectId, string $templateId, array $request = [], array $options = []): array
    {
        $path = [...$this->path($projectId, $templateId), 'preview'];
        return $this->requester->request('POST', $path, [], self::withContext($request), $options);
    }

    /**
     * Renders an unsaved template as a send would, saving nothing: POST /v1/projects/{projectId}/template-preview.
     *
     * @param array<string, mixed> $draft   subject, html, text, format, layout_id, variants; user, data, language
     * @param array<string, mixed> $options idempotency_key, timeout, max_retries
     * @return array{subject: string, html: string, text: string}
     */
    public function previewDraft(string $projectId, array $draft, array $options = []): array
    {
        $body = self::withContext($this->content($draft));
        return $this->requester->request('POST', ['projects', $projectId, 'template-preview'], [], $body, $options);
    }

    /**
     * Checks an unsaved template, saving nothing: POST /v1/projects/{projectId}/templates/validate.
     *
     * @param array<string, mixed> $template at least one of subject, html and text; format, layout_id, variants;
     *                                       user, data and language to render it with
     * @param array<string, mixed> $options  timeout, max_retries
     * @return array<string, mixed> {valid, errors: [{field, line, column, message}, ...], rendered: {subject, html,
     *                              text} or null, variables: ["user.name", "data.items", ...]}; field: "subject",
     *                              "html", "text", "variants/N/html", "layout_id", …; line and column count from 1
     *                              within the field, null when unknown
     */
    public function validate(string $projectId, array $template, array $options = []): array
    {
        $body = self::withContext($this->content($template));
        return $this->requester->request('POST', [...$this->path($projectId), 'validate'], [], $body, $options);
    }

    protected function content(array $body): array
    {
        if (isset($body['variants']) && is_array($body['variants'])) {
            $body['variants'] = array_values($body['variants']);
        }
        return $body;
    }

    /**
     * user and data as JSON objects, even empty.
     *
     * @param array<string, mixed> $body
     * @return array<string, mixed>
     */
    private static function withContext(array $body): array
    {
        foreach (['user', 'data'] as $name) {
            if (isset($body[$name]) && is_array($body[$name])) {
                $body[$name] = Json::object($body[$name]);
            }
        }
        return $body;
    }
}
