"""Maps the top-level folders envs/ and wrappers/ to agentgym.envs and agentgym.wrappers.

pyproject.toml cannot list sub-packages of a remapped folder by pattern, so they are found here;
this works for wheels and for editable installs alike.
"""
from setuptools import find_packages, setup

MAPPED = {"agentgym.envs": "envs", "agentgym.wrappers": "wrappers"}

packages = find_packages(include=["agentgym", "agentgym.*", "baselines", "baselines.*"])
package_dir = {"agentgym": "agentgym", "baselines": "baselines"}
for name, folder in MAPPED.items():
    packages.append(name)
    package_dir[name] = folder
    for sub in find_packages(where=folder):
        packages.append(f"{name}.{sub}")
        package_dir[f"{name}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"

setup(packages=packages, package_dir=package_dir)
