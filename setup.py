"""Build hook: ship the variant files (top-level `envs/*.toml`) inside the package.

`envs/` stays at the repository's top level, where variants are edited and where an
editable install reads them. A wheel has no repository around it, so the build copies
every `envs/*.toml` into `mafia_arena/envs/`, where `rules.loader.envs_dir` looks first.
A copy at build time (not a link inside the package) works on every platform and in an
sdist, which carries `envs/` through MANIFEST.in.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithVariants(build_py):
    """`build_py` plus the variant files, copied into the built package."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "mafia_arena" / "envs"
        self.mkpath(str(target))
        for source in sorted((ROOT / "envs").glob("*.toml")):
            self.copy_file(str(source), str(target / source.name))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        target = Path(self.build_lib) / "mafia_arena" / "envs"
        extra = [str(target / p.name) for p in sorted((ROOT / "envs").glob("*.toml"))]
        return [*super().get_outputs(include_bytecode), *extra]


setup(cmdclass={"build_py": BuildWithVariants})
