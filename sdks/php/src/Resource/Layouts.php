<?php

declare(strict_types=1);

namespace Postbus\Resource;

/**
 * Layouts: the HTML (and text) around templates' bodies, {name, html, text}: html holds
 * {{{content}}} exactly once, and so does text when given. Versioned and published as templates
 * are; publishing a version changes every template that names the layout from its next send.
 * delete() is a ConflictException (409) while a template's published version names the layout.
 * Needs a key of scope "full".
 */
final class Layouts extends VersionedResource
{
    protected const COLLECTION = 'layouts';
}
