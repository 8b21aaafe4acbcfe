"""The compiled part of the package: the YAML reader's C path over libyaml.

Everything else is declared in pyproject.toml. The extension is optional: where no C compiler or
no libyaml headers are found (Debian: libyaml-dev), the install goes on and the reader keeps its
event path (``generator.yamlio.read``), which gives the same data, slower.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "generator.yamlio._cread",
            sources=["generator/yamlio/_cread.c"],
            libraries=["yaml"],
            optional=True,
        )
    ]
)
