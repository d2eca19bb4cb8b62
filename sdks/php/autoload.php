<?php

declare(strict_types=1);

/*
 * For projects without Composer: `require __DIR__ . '/path/to/postbus-php/autoload.php';`
 * registers the same PSR-4 mapping Composer would (Postbus\ → src/).
 */
spl_autoload_register(static function (string $class): void {
    $prefix = 'Postbus\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
