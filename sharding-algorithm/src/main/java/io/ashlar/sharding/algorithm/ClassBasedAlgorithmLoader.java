package io.ashlar.sharding.algorithm;

import io.ashlar.sharding.AlgorithmProperties;
import io.ashlar.sharding.ComplexShardingAlgorithm;
import io.ashlar.sharding.HintShardingAlgorithm;
import io.ashlar.sharding.ShardingAlgorithm;
import io.ashlar.sharding.ShardingAlgorithmException;
import io.ashlar.sharding.StandardShardingAlgorithm;

import java.lang.reflect.InvocationTargetException;
import java.util.Locale;
import java.util.Map;

/**
 * {@code CLASS_BASED}: loads a user's algorithm class by name, once, when the rule is compiled
 * (<a href="https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/sharding/#class-based-sharding-algorithm">Class Based Sharding Algorithm</a>).
 *
 * <p>Properties: {@code strategy} ({@code STANDARD}, {@code COMPLEX} or {@code HINT}) and
 * {@code algorithmClassName}, a public class with a public no-argument constructor implementing
 * {@link StandardShardingAlgorithm}, {@link ComplexShardingAlgorithm} or
 * {@link HintShardingAlgorithm} respectively; its {@code init(Properties)} is called with all
 * properties. The class is looked up with the thread's context class loader, falling back to this
 * module's.
 */
public final class ClassBasedAlgorithmLoader {

    private static final String OWNER = "CLASS_BASED sharding algorithm";

    private ClassBasedAlgorithmLoader() {
    }

    /**
     * Loads, instantiates and initialises the configured class.
     *
     * @throws ShardingAlgorithmException naming the property or the class when anything fails
     */
    public static ShardingAlgorithm load(Map<String, String> props) {
        AlgorithmProperties properties = AlgorithmProperties.of(OWNER, props);
        String strategy = properties.require("strategy", "STANDARD, COMPLEX or HINT");
        Class<? extends ShardingAlgorithm> expected = switch (strategy.toUpperCase(Locale.ROOT)) {
            case "STANDARD" -> StandardShardingAlgorithm.class;
            case "COMPLEX" -> ComplexShardingAlgorithm.class;
            case "HINT" -> HintShardingAlgorithm.class;
            default -> throw properties.invalid("strategy", strategy, "STANDARD, COMPLEX or HINT");
        };
        String className = properties.require("algorithmClassName", "the name of a class implementing " + expected.getName());
        Class<?> loaded = loadClass(properties, className);
        if (!expected.isAssignableFrom(loaded)) {
            throw properties.invalid("algorithmClassName", className, "a class implementing " + expected.getName() + " for strategy " + strategy);
        }
        ShardingAlgorithm result;
        try {
            result = expected.cast(loaded.getDeclaredConstructor().newInstance());
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new ShardingAlgorithmException(OWNER + ": class '" + className + "' needs a public no-argument constructor", e);
        } catch (InstantiationException e) {
            throw new ShardingAlgorithmException(OWNER + ": class '" + className + "' cannot be instantiated (is it abstract?)", e);
        } catch (InvocationTargetException e) {
            throw new ShardingAlgorithmException(OWNER + ": the constructor of '" + className + "' failed: " + e.getCause(), e.getCause());
        }
        try {
            result.init(properties.toProperties());
        } catch (RuntimeException e) {
            throw new ShardingAlgorithmException(OWNER + ": init(Properties) of '" + className + "' failed: " + e, e);
        }
        return result;
    }

    private static Class<?> loadClass(AlgorithmProperties properties, String className) {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        try {
            return Class.forName(className, true, context != null ? context : ClassBasedAlgorithmLoader.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            try {
                return Class.forName(className, true, ClassBasedAlgorithmLoader.class.getClassLoader());
            } catch (ClassNotFoundException again) {
                throw properties.invalid("algorithmClassName", className, "a class on the proxy's classpath (not found)");
            }
        } catch (LinkageError e) {
            throw new ShardingAlgorithmException(OWNER + ": class '" + className + "' cannot be loaded: " + e, e);
        }
    }
}
