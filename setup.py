"""Build hook: ship the bundled data files inside the package.

Two top-level folders are edited in the repository and read from there by a source
checkout or an editable install: the variant files (`envs/*.toml`) and the default
prompt templates of the LLM players (`agents/prompts/*.txt`). A wheel has no
repository around it, so the build copies them into `mafia_arena/envs/` and
`mafia_arena/prompts/`, where `rules.loader.envs_dir` and
`agents.llm_prompts.default_prompts_dir` look first. A copy at build time (not a link
inside the package, not a second copy in the repository) keeps the top-level folders
the single source, works on every platform and in an sdist, which carries both folders
through MANIFEST.in.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent

#: (source folder under the repository, glob, target folder under `mafia_arena/`)
BUNDLED = (
    ("envs", "*.toml", "envs"),
    ("agents/prompts", "*.txt", "prompts"),
)


class BuildWithBundledFiles(build_py):
    """`build_py` plus the bundled data files, copied into the built package."""

    def _bundled(self) -> list[tuple[Path, Path]]:
        package = Path(self.build_lib) / "mafia_arena"
        return [
            (source, package / target / source.name)
            for folder, pattern, target in BUNDLED
            for source in sorted((ROOT / folder).glob(pattern))
        ]

    def run(self) -> None:
        super().run()
        for source, target in self._bundled():
            self.mkpath(str(target.parent))
            self.copy_file(str(source), str(target))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        extra = [str(target) for _, target in self._bundled()]
        return [*super().get_outputs(include_bytecode), *extra]


setup(cmdclass={"build_py": BuildWithBundledFiles})
