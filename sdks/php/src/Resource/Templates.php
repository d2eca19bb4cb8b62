<?php

declare(strict_types=1);

namespace Postbus\Resource;

use Postbus\Internal\Requester;

/** Templates: Handlebars subject, HTML and text. Needs a key of scope "full". */
final class Templates
{
    /** @internal */
    public function __construct(private Requester $requester)
    {
    }

    /**
     * Checks an unsaved template, saving nothing: POST /v1/projects/{projectId}/templates/validate.
     *
     * @param array<string, mixed> $template at least one of subject, html and text; user and data to render it with
     * @param array<string, mixed> $options  timeout, max_retries
     * @return array<string, mixed> {valid, errors: [{field: "subject"|"html"|"text", line, column, message}, ...],
     *                              rendered: {subject, html, text} or null, variables: ["user.name", "data.items", ...]};
     *                              line and column count from 1 within the field, null when unknown
     */
    public function validate(string $projectId, array $template, array $options = []): array
    {
        foreach (['user', 'data'] as $name) {
            if (isset($template[$name]) && is_array($template[$name])) {
                $template[$name] = Json::object($template[$name]);
            }
        }
        return $this->requester->request('POST', ['projects', $projectId, 'templates', 'validate'], [], $template, $options);
    }
}
